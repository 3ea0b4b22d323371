#!/usr/bin/env bash
# Checks the example workflows in docs/ci with actionlint (expressions, job and step keys, shell
# scripts in `run:` where shellcheck is installed), so a workflow we tell users to copy is valid.
set -euo pipefail
tool=lint-workflows
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bash "$root/scripts/ensure-actionlint.sh"
cd "$root"
"$root/.tools/bin/actionlint" -no-color docs/ci/*.yml
