#!/usr/bin/env bash
# `npm test`: everything CI checks, in one command. The tools that take long only the first time
# on a machine (the Pulumi CLI and actionlint, built with Go; moto's S3 server, from pip;
# Chromium, from Debian's packages) are
# prepared in the background while the TypeScript is built, type-checked and linted, since their
# first run spends much of its time waiting on downloads. Vitest starts once all are ready.
set -euo pipefail
tool=test
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$root"

pids=()
names=()
background() {
  local name=$1
  shift
  "$@" &
  pids+=("$!")
  names+=("$name")
}
background toolchain bash scripts/ensure-toolchain.sh
background s3-server bash scripts/ensure-s3-server.sh
background actionlint bash scripts/ensure-actionlint.sh
background browser bash scripts/ensure-browser.sh

# A failure here stops the run, and the background builds with it.
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
phase() {
  local started=$SECONDS
  "$@"
  say "$* took $((SECONDS - started))s"
}
phase npm run --silent build
phase npm run --silent typecheck
phase npm run --silent lint

for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || die "preparing ${names[$i]} failed (its output is above)"
done
trap - EXIT
phase npx vitest run
