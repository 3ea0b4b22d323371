# Sourced by the scripts that provide a tool the project needs (ensure-*.sh), after they set
# `tool` (the prefix of their messages). Gives them the repository root, the cache that keeps what
# they build outside the repository (shared by every checkout), and one way to speak and to fail.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache_root=${STACKWRIGHT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwright}

say() { printf '%s: %s\n' "$tool" "$*" >&2; }
die() {
  printf '%s: error: %s\n' "$tool" "$*" >&2
  exit 1
}
