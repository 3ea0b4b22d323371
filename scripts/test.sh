#!/usr/bin/env bash
# `npm test`: everything CI checks, in one command. The tools that take long only the first time
# on a machine (the Pulumi CLI and actionlint, built with Go; moto's S3 server, from pip;
# Chromium, from Debian's packages) are prepared in the background while the TypeScript is built.
# The run is CPU-bound on a 2-core machine, so what waits for what is chosen by what it needs:
#
#   - the Pulumi CLI's Go build (about 350 CPU-seconds when nothing is cached) is what the engine
#     tests wait for, so nothing competes with it at equal weight: only the TypeScript build and
#     moto's and Chromium's installs, which the tests need, run beside it, at a lower priority
#     (nice 10), in the time it leaves a core idle (downloading modules, linking);
#   - `engine` and `docs` (the real `pulumi` CLI) start as soon as the CLI is ready, and with them
#     `unit`, `integration` and `platform-answers` (no CLI needed; nice 19): they use the time the
#     engine tests spend waiting on their child processes (about a quarter of it) instead of
#     slowing the Go build down. At nice 19 they take little more than that idle time, and the
#     engine files run nearly as they would alone: both groups together took 393 and 419 s
#     against 422 and 432 at nice 5 (two pairs of runs, interleaved, on the 2-core machine), and
#     the group without the engine still ended minutes before the other;
#   - the TypeScript build and the type check run TypeScript 7's native compiler (package.json's
#     `native-typescript`, named by path in its scripts: npm links only one of the two `tsc`) on
#     one thread: on 2 cores its parallel checkers took about twice the CPU time for no shorter
#     wall time (type check 12.2 against 6.5 CPU-seconds, build 11.0 against 5.0). TypeScript 5.9,
#     which typescript-eslint and two tests load as a library, took 24.9 and 26.0;
#   - the type check, eslint and the formatters' check (side by side) start at once, and
#     actionlint's build and check once the CLI is built (Go too: the two builds would compile the
#     same standard packages side by side), all at nice 19: nothing waits for them and no test
#     times them, so they take only what the others leave idle (the Go build's module downloads,
#     the engine tests' waits at the end of the run). At nice 10 beside the Go build they took a
#     tenth of the machine from it, about 45 CPU-seconds.
#
# On a machine where the tools are cached everything starts at once. Each vitest group is one
# `vitest run` (with its own suite-wide token check); the run fails if any group or check does.
# `npx vitest run` alone runs all five projects at once.
set -euo pipefail
tool="test"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$root"

began=$SECONDS
# One compile cache for every Node process of the run (vitest's, the CLI's, the programs', the
# provider hosts'; bin/stackwright.js would use the OS-wide one), removed at the end: the tests'
# scratch copies have paths of their own, and their entries would pile up run after run.
NODE_COMPILE_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/stackwright-test-compile-cache-XXXXXX")
export NODE_COMPILE_CACHE
# Each vitest group's JSON report, read at the end to name again what failed (see below).
reports=$(mktemp -d "${TMPDIR:-/tmp}/stackwright-test-reports-XXXXXX")
declare -A pid_of
background() {
  local name=$1
  shift
  "$@" &
  pid_of[$name]=$!
}
# A failure anywhere stops the run, and everything started in the background with it.
trap 'kill "${pid_of[@]}" 2>/dev/null || true; rm -rf "$NODE_COMPILE_CACHE" "$reports"' EXIT

background toolchain bash scripts/ensure-toolchain.sh
background s3-server nice -n 10 bash scripts/ensure-s3-server.sh
background browser nice -n 10 bash scripts/ensure-browser.sh

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
# Sets group_cpu to the CPU time (user, system) of what the calling group ran: each group runs in
# a subshell of its own, so the `times` of that subshell counts its processes alone. Called as a
# plain function and written to a file: `times` in a pipe or a command substitution would run in a
# new subshell, which has no children.
group_cpu=""
read_group_cpu() {
  local usage
  usage=$(mktemp)
  times >"$usage"
  group_cpu=$(tail -n 1 "$usage")
  rm -f "$usage"
}
# tests GROUP NAME NICENESS VITEST-ARGS...: its report goes to $reports/GROUP.json.
tests() {
  local group=$1 name=$2 niceness=$3 started=$SECONDS status=0
  shift 3
  nice -n "$niceness" npx vitest run "$@" \
    --reporter=default --reporter=json --outputFile.json="$reports/$group.json" || status=$?
  read_group_cpu
  say "tests, $name ($*) took $((SECONDS - started))s, ended at $((SECONDS - began))s; CPU time (user, system): $group_cpu"
  return "$status"
}
# The type check, eslint and the formatters' check, side by side (filler: see the top of this
# file): no Go.
checks() {
  local started=$SECONDS status=0 typecheck eslint
  nice -n 19 npm run --silent typecheck -- --singleThreaded &
  typecheck=$!
  nice -n 19 npm run --silent lint:eslint &
  eslint=$!
  nice -n 19 npm run --silent lint:format || status=$?
  wait "$typecheck" || status=$?
  wait "$eslint" || status=$?
  read_group_cpu
  say "type check, eslint and the formatters took $((SECONDS - started))s, ended at $((SECONDS - began))s; CPU time (user, system): $group_cpu"
  return "$status"
}
# The workflow templates' check (it builds actionlint the first time, or waits for another run's
# build of it, which holds a lock).
workflow_checks() {
  local started=$SECONDS status=0
  nice -n 19 npm run --silent lint:workflows || status=$?
  say "the workflows' check took $((SECONDS - started))s, ended at $((SECONDS - began))s"
  return "$status"
}

background checks checks
phase nice -n 10 npm run --silent build -- --singleThreaded
ready s3-server browser toolchain
background workflow-checks workflow_checks

# Two workers, vitest.config.mts's (a project's pool takes its size from the config, not from
# --maxWorkers): three engine files at once on two cores took longer than two (over 443 s
# against 405 for the group alone), each file slowed by the others more than their waits gave.
background engine tests engine "with the engine" 0 --project engine --project docs
background no-engine tests no-engine "without the engine" 19 --project unit --project integration --project platform-answers

failed=()
for name in checks workflow-checks no-engine engine; do
  wait "${pid_of[$name]}" || failed+=("$name")
  unset "pid_of[$name]"
done
trap - EXIT
say "npm test took $((SECONDS - began))s in all; CPU time (user, system) of this shell, then of everything it ran:"
times >&2
# The groups run side by side and the one with the engine ends last, so a failure elsewhere was
# reported minutes up the log: what failed is said again here, where a log's tail shows it.
for name in "${failed[@]}"; do
  case $name in
  engine | no-engine)
    node test/helpers/run-ts.cjs test/helpers/failed-tests.ts "$name" "$reports/$name.json" ||
      say "$name: its report could not be read (above: why)"
    ;;
  esac
done
rm -rf "$NODE_COMPILE_CACHE" "$reports"
[ "${#failed[@]}" -eq 0 ] || die "failed: ${failed[*]} (a failed test is named just above; every report is in full further up)"
