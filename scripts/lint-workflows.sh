#!/usr/bin/env bash
# Checks the workflow templates of templates/workflows with actionlint (expressions, job and step
# keys, shell scripts in `run:` where shellcheck is installed), rendered as `stackwright init`
# renders them (templates/README.md: the placeholders replaced by a version and a target), so
# every workflow an ops repository gets is valid.
set -euo pipefail
tool=lint-workflows
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$root/scripts/ensure-actionlint.sh"
cd "$root"
version=$(node -p 'require("./package.json").version')
rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
mkdir -p "$rendered/.github/workflows"
for template in templates/workflows/*.yml; do
  sed -e "s/__STACKWRIGHT_VERSION__/$version/g" -e "s/__TARGET__/production/g" "$template" \
    >"$rendered/.github/workflows/$(basename "$template")"
done
if grep -n "__[A-Z_]*__" "$rendered"/.github/workflows/*.yml; then
  die "a template holds a placeholder that templates/README.md does not define (above)"
fi
# From the rendered directory: actionlint names each file as an ops repository holds it.
cd "$rendered"
"$root/.tools/bin/actionlint" -no-color .github/workflows/*.yml
