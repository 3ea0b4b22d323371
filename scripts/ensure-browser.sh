#!/usr/bin/env bash
# Provides the browser the fleet page's tests drive: Debian's `chromium` package, run headless by
# the pinned `playwright-core` (a devDependency; it never downloads a browser of its own).
# Idempotent: when Chromium is on the machine this only checks it (a fraction of a second).
#
# Where the package cannot be installed (not Debian, not root, no package mirror), it says so and
# exits 0, and the browser tests skip with that reason; under CI=true that is an error instead,
# because CI must run them. STACKWRIGHT_CHROMIUM names another Chromium binary to use.
set -euo pipefail

tool=browser
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

found() {
  local candidate
  for candidate in "${STACKWRIGHT_CHROMIUM:-}" chromium chromium-browser; do
    [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1 && {
      command -v "$candidate"
      return 0
    }
  done
  return 1
}

cannot() {
  if [ "${CI:-}" = "true" ]; then die "$* (CI must run the browser tests)"; fi
  say "$*; the browser tests will skip"
  exit 0
}

if binary=$(found); then
  say "using $binary"
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || cannot "no Chromium and no apt-get to install Debian's chromium"
[ "$(id -u)" = "0" ] || cannot "no Chromium, and installing Debian's chromium needs root (apt-get install chromium)"
mkdir -p "$cache_root"
exec 9>"$cache_root/.browser.lock"
flock -w 900 9 || die "another install holds $cache_root/.browser.lock for more than 15 minutes"
if ! binary=$(found); then
  say "installing Debian's chromium (first run only; about 20 s)"
  started=$(date +%s)
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || cannot "apt-get update failed"
  apt-get install -y -qq --no-install-recommends chromium >/dev/null || cannot "apt-get install chromium failed"
  binary=$(found) || cannot "chromium installed but not on PATH"
  say "installed in $(($(date +%s) - started))s"
fi
say "using $binary"
