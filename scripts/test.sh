#!/usr/bin/env bash
# `npm test`: everything CI checks, in one command. The tools that take long only the first time
# on a machine (the Pulumi CLI and actionlint, built with Go; moto's S3 server, from pip;
# Chromium, from Debian's packages) are prepared in the background while the TypeScript is built,
# type-checked and linted. Then the tests run in two phases that overlap:
#
#   1. `unit`, `integration` and `platform-answers` (no Pulumi CLI needed) start as soon as the
#      S3 server and Chromium are ready: on a cold machine, while the CLI is still being built;
#   2. `engine` and `docs` (the real `pulumi` CLI) start as soon as the CLI is ready, beside
#      whatever phase 1 has left.
#
# Each phase is one `vitest run` (with its own suite-wide token check); the run fails if either
# does. `npx vitest run` alone runs all five projects at once.
set -euo pipefail
tool=test
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$root"

began=$SECONDS
# One compile cache for every Node process of the run (vitest's, the CLI's, the programs', the
# provider hosts'; bin/stackwright.js would use the OS-wide one), removed at the end: the tests'
# scratch copies have paths of their own, and their entries would pile up run after run.
NODE_COMPILE_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/stackwright-test-compile-cache-XXXXXX")
export NODE_COMPILE_CACHE
declare -A pid_of
background() {
  local name=$1
  shift
  "$@" &
  pid_of[$name]=$!
}
# A failure anywhere stops the run, and everything started in the background with it.
trap 'kill "${pid_of[@]}" 2>/dev/null || true; rm -rf "$NODE_COMPILE_CACHE"' EXIT

background toolchain bash scripts/ensure-toolchain.sh
background s3-server bash scripts/ensure-s3-server.sh
background actionlint bash scripts/ensure-actionlint.sh
background browser bash scripts/ensure-browser.sh

phase() {
  local started=$SECONDS
  "$@"
  say "$* took $((SECONDS - started))s"
}
ready() {
  local name
  for name in "$@"; do
    wait "${pid_of[$name]}" || die "preparing $name failed (its output is above)"
    unset "pid_of[$name]"
    say "$name ready at $((SECONDS - began))s"
  done
}
tests() {
  local name=$1 started=$SECONDS status=0
  shift
  npx vitest run "$@" || status=$?
  say "tests, $name ($*) took $((SECONDS - started))s, ended at $((SECONDS - began))s"
  return "$status"
}

phase npm run --silent build
phase npm run --silent typecheck
phase npm run --silent lint
ready actionlint s3-server browser

background no-engine tests "without the engine" --project unit --project integration --project platform-answers
ready toolchain
background engine tests "with the engine" --project engine --project docs

failed=()
for name in no-engine engine; do
  wait "${pid_of[$name]}" || failed+=("$name")
  unset "pid_of[$name]"
done
trap - EXIT
rm -rf "$NODE_COMPILE_CACHE"
say "npm test took $((SECONDS - began))s in all; CPU time (user, system) of this shell, then of everything it ran:"
times >&2
[ "${#failed[@]}" -eq 0 ] || die "tests failed (${failed[*]}): their reports are above"
