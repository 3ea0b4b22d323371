#!/usr/bin/env bash
# Provides the S3-compatible server that the tests run Pulumi's S3 state backend against: moto in
# server mode, in a Python venv with every package pinned by scripts/s3-server/requirements.txt.
# Idempotent: a second run only checks and relinks (a fraction of a second).
#
# The venv is cached outside the repo, like the Pulumi toolchain, under
# ${STACKWRIGHT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/stackwright}/s3-server-<hash>, keyed by the
# requirements file and the Python version, and linked as .tools/s3-server. Packages come from the
# Python package index through pip; nothing else is downloaded.
set -euo pipefail

tool=s3-server
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
requirements="$root/scripts/s3-server/requirements.txt"
link_path="$root/.tools/s3-server"

python=${STACKWRIGHT_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 ||
  die "no '$python' on PATH: the S3 state tests need Python 3.9 or later (set STACKWRIGHT_PYTHON to use another interpreter)."
py_version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' ||
  die "$python is Python $py_version; moto needs 3.9 or later (set STACKWRIGHT_PYTHON)."

key=$( (cat "$requirements" && echo "$py_version") | sha256sum | cut -c1-16)
venv="$cache_root/s3-server-$key"

mkdir -p "$root/.tools"
if [ ! -f "$venv/complete" ]; then
  mkdir -p "$cache_root"
  exec 9>"$cache_root/.s3-server.lock"
  flock -w 900 9 || die "another install holds $cache_root/.s3-server.lock for more than 15 minutes"
  if [ ! -f "$venv/complete" ]; then
    say "installing moto's S3 server into $venv (first run only; about a minute)"
    started=$(date +%s)
    # The venv is built where it will live (a venv's scripts hold their absolute path); without
    # its `complete` marker a half-built one is rebuilt from scratch.
    rm -rf "$venv"
    # The interpreter's own pip installs into a venv made without one (`pip --python`, pip 22.3 or
    # later): a pip of the venv's own (ensurepip) cost 7 of the install's 21 CPU-seconds on the
    # 2-core machine. Without such a pip, the venv gets its own.
    pip_at_least_22_3='import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (22, 3))'
    if "$python" -c "$pip_at_least_22_3" 2>/dev/null; then
      "$python" -m venv --without-pip "$venv" || die "'$python -m venv --without-pip' failed"
      pip=("$python" -m pip --python "$venv/bin/python")
    else
      "$python" -m venv "$venv" || die "'$python -m venv' failed (on Debian: apt-get install python3-venv)"
      pip=("$venv/bin/pip")
    fi
    "${pip[@]}" install --quiet --disable-pip-version-check --no-input --no-deps -r "$requirements" ||
      die "pip could not install scripts/s3-server/requirements.txt (output above). Check that the Python package index is reachable."
    "$venv/bin/python" -c 'import moto.server, flask' || die "moto's server does not import in $venv"
    touch "$venv/complete"
    say "installed in $(($(date +%s) - started))s"
  fi
fi
ln -sfn "$venv" "$link_path"
say "using moto's S3 server ($venv)"
