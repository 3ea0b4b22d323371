#!/usr/bin/env bash
# Regenerates docs/fleet-page.png, the README's picture of `stackwright status --html`: the page
# of a generated fleet in every sync state, shot by the same headless Chromium as the browser
# tests (scripts/ensure-browser.sh installs it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/ensure-browser.sh"
cd "$root"
node test/helpers/run-ts.cjs test/helpers/screenshot-fleet-page.ts docs/fleet-page.png
