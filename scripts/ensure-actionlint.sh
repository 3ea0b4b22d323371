#!/usr/bin/env bash
# Provides actionlint (pinned in scripts/actionlint-build/go.mod) in .tools/bin, to check the
# workflow templates of templates/workflows. Built once from the Go module proxy, like the Pulumi
# CLI, and cached outside the repository keyed by the hash of scripts/actionlint-build; later runs only
# relink. Nothing is downloaded but Go modules.
set -euo pipefail

tool=actionlint
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build_dir="$root/scripts/actionlint-build"
tools_bin="$root/.tools/bin"
version=$(sed -n 's/^require github.com\/rhysd\/actionlint \(v[0-9.]*\)$/\1/p' "$build_dir/go.mod")
[ -n "$version" ] || die "scripts/actionlint-build/go.mod pins no github.com/rhysd/actionlint release"

src_hash=$(cd "$build_dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
cache="$cache_root/actionlint-$version-$src_hash"
mkdir -p "$tools_bin"
if [ ! -f "$cache/complete" ]; then
  command -v go >/dev/null 2>&1 ||
    die "no Go toolchain to build actionlint $version. Install Go 1.26 or later, then rerun."
  mkdir -p "$cache_root"
  exec 9>"$cache_root/.actionlint.lock"
  flock -w 900 9 || die "another build holds $cache_root/.actionlint.lock for more than 15 minutes"
  if [ ! -f "$cache/complete" ]; then
    say "building actionlint $version from the Go module proxy (first run only; under a minute)"
    started=$(date +%s)
    tmp=$(mktemp -d "$cache_root/.build-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    # The Pulumi CLI's compile flags (scripts/ensure-toolchain.sh), so that the standard library
    # it compiled comes from the Go build cache instead of being compiled again.
    (cd "$build_dir" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -gcflags=all=-dwarf=false -ldflags "-s -w" -o "$tmp/bin/actionlint" github.com/rhysd/actionlint/cmd/actionlint) ||
      die "the Go build failed (output above). Check that the Go module proxy is reachable."
    touch "$tmp/complete"
    rm -rf "$cache"
    mv "$tmp" "$cache"
    trap - EXIT
    say "built in $(($(date +%s) - started))s into $cache"
  fi
fi
ln -sfn "$cache/bin/actionlint" "$tools_bin/actionlint"
