//go:build tools

// Package tools pins actionlint, which `npm run lint` builds once (scripts/ensure-actionlint.sh)
// to check the workflow templates in templates/workflows.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
