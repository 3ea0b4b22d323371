#!/usr/bin/env bash
# Provides the Pulumi CLI and the Node.js language host in .tools/bin, beside the dynamic-provider
# plugin that ships in @pulumi/pulumi. Idempotent: a second run only checks and relinks.
#
# It runs in this repository (`npm run toolchain`) and from the installed package (the `stackwright`
# command runs it when the package's .tools/bin has no CLI); $root is the package either way.
#
# Order of preference:
#   1. a `pulumi` already on PATH of the major release pinned by @pulumi/pulumi in package.json and
#      at or above it (the CLI keeps older SDKs of its major working), with its own
#      pulumi-language-nodejs beside it;
#   2. binaries built earlier, cached outside the repo under
#      ${STACKWRIGHT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/stackwright}, keyed by release and by the
#      hash of scripts/pulumi-build and of the compiler flags (so a change to our language host or
#      to how the CLI is compiled rebuilds it);
#   3. a build from the Go module proxy with the go.mod/go.sum pinned in scripts/pulumi-build.
# No prebuilt CLI is downloaded from anywhere: none can be, on our machines.
set -euo pipefail

tool=toolchain
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build_dir="$root/scripts/pulumi-build"
# shellcheck source=scripts/pulumi-build/lazy-dictionaries.sh
source "$build_dir/lazy-dictionaries.sh"
# shellcheck source=scripts/pulumi-build/trim-cli.sh
source "$build_dir/trim-cli.sh"
tools_bin="$root/.tools/bin"


# Found as Node finds it from the package: installed, npm hoists it beside the package.
sdk_dir=$(node -e 'console.log(require("node:path").dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [process.argv[1]] })))' "$root" 2>/dev/null) ||
  die "@pulumi/pulumi is not installed where $root can load it: run 'npm ci' (or 'npm install') first."

version=$(node -p 'require(process.argv[1]).version' "$sdk_dir/package.json")
pinned=$(node -p 'require(process.argv[1]).dependencies["@pulumi/pulumi"]' "$root/package.json")
[ "$version" = "$pinned" ] ||
  die "$sdk_dir is @pulumi/pulumi $version but $root/package.json pins $pinned: run 'npm ci'."
grep -q "github.com/pulumi/pulumi/pkg/v3 v$version\$" "$build_dir/go.mod" ||
  die "scripts/pulumi-build/go.mod does not pin github.com/pulumi/pulumi/pkg/v3 v$version (the @pulumi/pulumi version in package.json). Update both together."

mkdir -p "$tools_bin"
link() { ln -sfn "$1" "$tools_bin/$(basename "$2")"; }
# The dynamic-provider plugin is a shell script (ours, in scripts/; the SDK ships one too); it
# runs `node` from PATH and finds what to serve from its working directory (the project), so one
# copy serves every checkout. It goes next to the CLI's real path: the engine looks for bundled
# plugins there, and warns on every run about one found anywhere else on PATH.
sdk_plugin="$sdk_dir/pulumi-resource-pulumi-nodejs"
our_plugin="$root/scripts/pulumi-resource-pulumi-nodejs"
bundle_plugin() {
  cmp -s "$our_plugin" "$1/pulumi-resource-pulumi-nodejs" || install -m 0755 "$our_plugin" "$1/pulumi-resource-pulumi-nodejs"
  link "$1/pulumi-resource-pulumi-nodejs" pulumi-resource-pulumi-nodejs
}

# True when `pulumi version`'s answer $1 is a release the pinned one ($version) can be run with:
# the same major, at or above it (a pre-release counts below its release).
usable_release() {
  [[ ${1#v} =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)(-[^+]*)?(\+.*)?$ ]] || return 1
  local major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} patch=${BASH_REMATCH[3]} pre=${BASH_REMATCH[4]}
  IFS=. read -r want_major want_minor want_patch <<<"$version"
  [ "$major" -eq "$want_major" ] || return 1
  [ "$minor" -ne "$want_minor" ] && { [ "$minor" -gt "$want_minor" ]; return; }
  [ "$patch" -ne "$want_patch" ] && { [ "$patch" -gt "$want_patch" ]; return; }
  [ -z "$pre" ]
}

# 1. A usable CLI on PATH (outside our own .tools/bin).
# Compared by real path: a scratch copy of the project links its .tools to ours, and taking our
# own links from there would make each a link to itself.
real_tools_bin=$(readlink -f "$tools_bin")
path_without_tools=$(
  printf '%s' "$PATH" | tr ':' '\n' | while IFS= read -r dir; do
    [ -n "$dir" ] && [ "$(readlink -f "$dir" 2>/dev/null || printf '%s' "$dir")" = "$real_tools_bin" ] || printf '%s\n' "$dir"
  done | paste -sd: -
)
existing=$(PATH="$path_without_tools" command -v pulumi || true)
existing_host=""
if [ -n "$existing" ]; then
  # Its own language host: beside the command on PATH, or beside the file it links to.
  for dir in "$(dirname "$existing")" "$(dirname "$(readlink -f "$existing")")"; do
    if [ -x "$dir/pulumi-language-nodejs" ]; then
      existing_host="$dir/pulumi-language-nodejs"
      break
    fi
  done
fi
if [ -n "$existing_host" ]; then
  existing_version=$(PULUMI_SKIP_UPDATE_CHECK=true "$existing" version 2>/dev/null || true)
  if usable_release "$existing_version"; then
    link "$existing" pulumi
    link "$existing_host" pulumi-language-nodejs
    # A Pulumi install ships the plugin beside its CLI; use the SDK's only where it does not.
    bundled="$(dirname "$(readlink -f "$existing")")/pulumi-resource-pulumi-nodejs"
    if [ -x "$bundled" ]; then link "$bundled" pulumi-resource-pulumi-nodejs; else link "$sdk_plugin" pulumi-resource-pulumi-nodejs; fi
    say "using pulumi $existing_version from $(dirname "$existing") (Stackwright pins and is tested with v$version)"
    exit 0
  fi
  say "not using pulumi ${existing_version:-(no version)} from $(dirname "$existing"): Stackwright needs v${version%%.*}.x at or above v$version (the release it pins and is tested with)"
fi

# 2. The cache.
# How the CLI is compiled, beside the flags every package gets (-trimpath, no VCS stamp, no DWARF).
# The standard library as Go compiles it by default; every other package without inlining: a
# function the inliner grows is slower to compile, and the CLI's time goes to the engine's waits
# and its API calls, not to calls an inlined body would save. Measured on the 2-core machine, three
# builds side by side with one core each and an empty build cache: 439 CPU-seconds with inlining,
# 347 without it outside the standard library, 337 without it anywhere; the `pulumi` processes of
# four engine test files took 0.33 and 0.34 CPU-seconds each with the first two builds (runs
# interleaved), and 0.44 with the third: so the standard library keeps the compiler's default.
package_flags=("-gcflags=all=-l -dwarf=false" "-gcflags=std=-dwarf=false")
src_hash=$(
  {
    (cd "$build_dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    printf '%s\n' "${package_flags[@]}"
  } | sha256sum | cut -c1-16
)
cache="$cache_root/pulumi-v$version-$src_hash"
if [ -x "$cache/bin/pulumi" ] && [ -x "$cache/bin/pulumi-language-nodejs" ] && [ -f "$cache/complete" ]; then
  link "$cache/bin/pulumi" pulumi
  link "$cache/bin/pulumi-language-nodejs" pulumi-language-nodejs
  bundle_plugin "$cache/bin"
  say "using cached pulumi v$version, the release Stackwright pins and is tested with ($cache)"
  exit 0
fi

# 3. Build from the Go module proxy.
command -v go >/dev/null 2>&1 ||
  die "no usable Pulumi CLI on PATH (v${version%%.*}.x at or above v$version, the release Stackwright pins and is tested with, with its pulumi-language-nodejs beside it) and no Go toolchain to build one. Install Go 1.26 or later (then rerun), or put such a Pulumi CLI on PATH."

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock -w 1800 9 || die "another build holds $cache_root/.lock for more than 30 minutes"
if [ ! -f "$cache/complete" ]; then
  say "building pulumi v$version and the Node.js language host from the Go module proxy (first run only; about 3 to 6 minutes on 2 cores)"
  started=$(date +%s)
  tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # One `go build` for both binaries: they share most packages, and one build graph keeps both
  # cores busy. No debug information (-dwarf=false, -s -w): nobody debugs this cached tool, and
  # leaving it out saved about 12% of the build's CPU time. `-X main.version` names the release
  # in our language host (the CLI's main package has no such variable).
  ldflags="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version -X main.version=$version"
  (
    cd "$build_dir"
    export CGO_ENABLED=0
    # The first half-minute of a build with an empty module cache fetches modules with both cores
    # nearly idle; the standard library needs no module, so it is compiled in that time, beside
    # the fetch. Same compile flags as the build's (and actionlint's: scripts/ensure-actionlint.sh),
    # so the build finds those packages in the Go build cache. The list leaves out what the CLI
    # does not import (the Go tool's own packages, debug formats, testing); a package it does
    # import but the list misses is only compiled later, by the build itself.
    compile_flags=(-trimpath -buildvcs=false -gcflags=all=-dwarf=false)
    std=$(go list std | grep -v -E '^(vendor/|go/|debug/|testing|image/|index/|plugin|expvar|runtime/(race|coverage|cgo)|log/syslog|net/rpc|net/smtp|net/http/(cgi|fcgi|httptest|cookiejar))|internal')
    # shellcheck disable=SC2086 # one argument per package
    go build "${compile_flags[@]}" $std &
    std_build=$!
    # The CLI's password-strength word lists are read on first use, not at every start
    # (scripts/pulumi-build/lazy-dictionaries.sh says why and how).
    mkdir "$tmp/modules"
    lazy_dictionaries "$build_dir" "$tmp/modules"
    # Without what Stackwright never runs (scripts/pulumi-build/trim-cli.sh says what and why).
    trim_cli "$build_dir" "$tmp/modules"
    # The packages' own flags: see package_flags above.
    go build "${compile_flags[@]}" "${package_flags[@]}" -ldflags "$ldflags" \
      -modfile "$tmp/modules/go.mod" -o "$tmp/bin/" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ./language-host
    wait "$std_build" || true # a failure there shows again, with its cause, in the build above
    mv "$tmp/bin/language-host" "$tmp/bin/pulumi-language-nodejs"
    rm -rf "$tmp/modules"
  ) || die "the Go build failed (output above). Check that the Go module proxy is reachable."
  [ "$("$tmp/bin/pulumi" version)" = "v$version" ] || die "the built CLI does not report v$version"
  touch "$tmp/complete"
  rm -rf "$cache"
  mv "$tmp" "$cache"
  trap - EXIT
  say "built in $(($(date +%s) - started))s into $cache"
fi
link "$cache/bin/pulumi" pulumi
link "$cache/bin/pulumi-language-nodejs" pulumi-language-nodejs
bundle_plugin "$cache/bin"
say "using pulumi v$version ($cache)"
