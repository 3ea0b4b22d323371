#!/usr/bin/env bash
# Provides the Pulumi CLI and the Node.js language host in .tools/bin, beside the dynamic-provider
# plugin that ships in @pulumi/pulumi. Idempotent: a second run only checks and relinks.
#
# Order of preference:
#   1. a `pulumi` already on PATH that is exactly the release pinned by @pulumi/pulumi in
#      package.json (with its own pulumi-language-nodejs beside it);
#   2. binaries built earlier, cached outside the repo under
#      ${STACKWRIGHT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/stackwright}, keyed by release and by the
#      hash of scripts/pulumi-build (so a change to our language host rebuilds it);
#   3. a build from the Go module proxy with the go.mod/go.sum pinned in scripts/pulumi-build.
# No prebuilt CLI is downloaded from anywhere: none can be, on our machines.
set -euo pipefail

tool=toolchain
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build_dir="$root/scripts/pulumi-build"
tools_bin="$root/.tools/bin"


[ -f "$root/node_modules/@pulumi/pulumi/package.json" ] ||
  die "node_modules is missing @pulumi/pulumi: run 'npm ci' in $root first."

version=$(node -p 'require(process.argv[1]).version' "$root/node_modules/@pulumi/pulumi/package.json")
pinned=$(node -p 'require(process.argv[1]).dependencies["@pulumi/pulumi"]' "$root/package.json")
[ "$version" = "$pinned" ] ||
  die "node_modules has @pulumi/pulumi $version but package.json pins $pinned: run 'npm ci'."
grep -q "github.com/pulumi/pulumi/pkg/v3 v$version\$" "$build_dir/go.mod" ||
  die "scripts/pulumi-build/go.mod does not pin github.com/pulumi/pulumi/pkg/v3 v$version (the @pulumi/pulumi version in package.json). Update both together."

mkdir -p "$tools_bin"
link() { ln -sfn "$1" "$tools_bin/$(basename "$2")"; }
# The dynamic-provider plugin is a shell script (ours, in scripts/; the SDK ships one too); it
# runs `node` from PATH and finds what to serve from its working directory (the project), so one
# copy serves every checkout. It goes next to the CLI's real path: the engine looks for bundled
# plugins there, and warns on every run about one found anywhere else on PATH.
sdk_plugin="$root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
our_plugin="$root/scripts/pulumi-resource-pulumi-nodejs"
bundle_plugin() {
  cmp -s "$our_plugin" "$1/pulumi-resource-pulumi-nodejs" || install -m 0755 "$our_plugin" "$1/pulumi-resource-pulumi-nodejs"
  link "$1/pulumi-resource-pulumi-nodejs" pulumi-resource-pulumi-nodejs
}

# 1. A matching CLI on PATH (outside our own .tools/bin, under whatever name PATH gives it: a
# checkout whose .tools is a link to another's, as the docs test makes, would link it to itself).
tools_bin_real=$(cd "$tools_bin" && pwd -P)
path_without_tools=$(printf '%s' "$PATH" | tr ':' '\n' | while IFS= read -r dir; do
  [ -n "$dir" ] && [ "$(cd "$dir" 2>/dev/null && pwd -P)" = "$tools_bin_real" ] && continue
  printf '%s\n' "$dir"
done | paste -sd: -)
existing=$(PATH="$path_without_tools" command -v pulumi || true)
existing_host=$(PATH="$path_without_tools" command -v pulumi-language-nodejs || true)
if [ -n "$existing" ] && [ -n "$existing_host" ] &&
  [ "$(PULUMI_SKIP_UPDATE_CHECK=true "$existing" version 2>/dev/null)" = "v$version" ]; then
  link "$existing" pulumi
  link "$existing_host" pulumi-language-nodejs
  # A Pulumi install ships the plugin beside its CLI; use ours only where it does not.
  bundled="$(dirname "$(readlink -f "$existing")")/pulumi-resource-pulumi-nodejs"
  if [ -x "$bundled" ]; then link "$bundled" pulumi-resource-pulumi-nodejs; else link "$sdk_plugin" pulumi-resource-pulumi-nodejs; fi
  say "using pulumi v$version from $(dirname "$existing")"
  exit 0
fi

# 2. The cache.
src_hash=$(cd "$build_dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
cache="$cache_root/pulumi-v$version-$src_hash"
if [ -x "$cache/bin/pulumi" ] && [ -x "$cache/bin/pulumi-language-nodejs" ] && [ -f "$cache/complete" ]; then
  link "$cache/bin/pulumi" pulumi
  link "$cache/bin/pulumi-language-nodejs" pulumi-language-nodejs
  bundle_plugin "$cache/bin"
  say "using cached pulumi v$version ($cache)"
  exit 0
fi

# 3. Build from the Go module proxy.
command -v go >/dev/null 2>&1 ||
  die "no Pulumi CLI v$version on PATH and no Go toolchain to build one. Install Go 1.26 or later (then rerun), or put Pulumi CLI v$version and its pulumi-language-nodejs on PATH."

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock -w 1800 9 || die "another build holds $cache_root/.lock for more than 30 minutes"
if [ ! -f "$cache/complete" ]; then
  say "building pulumi v$version and the Node.js language host from the Go module proxy (first run only; about 4 to 10 minutes on 2 cores)"
  started=$(date +%s)
  tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  ldflags="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version"
  (
    cd "$build_dir"
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$tmp/bin/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-X main.version=$version" -o "$tmp/bin/pulumi-language-nodejs" ./language-host
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
