#!/usr/bin/env bash
# Regenerates docs/fleet-page.png (or the PNG path given), the operator guide's picture of
# `stackwright status --html`: the demo fleet of `npm start` (the emulator's demo seed and
# stacks-config/, in a scratch copy), with a few environments put in other states through the
# API, shot by the same headless Chromium as the browser tests (scripts/ensure-browser.sh
# installs it). Builds first when dist/ is missing or older than a source file, as `npm start`
# would (and leaves a fresh dist/ alone, so it can run beside tests that copy it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath -m "${1:-$root/docs/fleet-page.png}")
bash "$root/scripts/ensure-browser.sh"
cd "$root"
npm run toolchain --silent
stamp=dist/src/cli/main.js
if [ ! -f "$stamp" ] || [ -n "$(find src providers -name '*.ts' -newer "$stamp" -print -quit)" ]; then
  npm run build --silent
fi
node test/helpers/run-ts.cjs test/helpers/screenshot-fleet-page.ts "$out"
