//go:build tools

// Package tools pins actionlint, which `npm run lint` builds once (scripts/ensure-actionlint.sh)
// to check the example workflows in docs/ci.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
