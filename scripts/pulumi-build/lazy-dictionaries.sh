# shellcheck shell=bash
# Sourced by scripts/ensure-toolchain.sh before the Pulumi CLI's build.
#
# The CLI imports two copies of zxcvbn-go (`pulumi config set` and `esc env set` use it to warn
# about a plain value that looks like a password). Both parse their word lists and build their
# ranked dictionaries in package init functions, so every `pulumi` process pays for it before it
# does anything: about half of the CPU time of `pulumi version` (perf names those inits and the
# garbage collection they cause; 0.21 -> 0.11 CPU-seconds with them deferred, medians of
# interleaved runs on the 2-core machine), and a Stackwright run starts several such processes per
# stack. The build uses copies of the two modules (as the module proxy serves them, checked against
# go.sum) in which the word lists are read the first time a value is checked instead; matching's
# Omnimatch already builds its matchers on first use when init has not. Nothing else changes:
# same code, same lists, same answers (test/e2e/pulumi-cli.test.ts checks both the refusal of a
# random value and the dictionary's acceptance of a phrase of English words).
#
# lazy_dictionaries BUILD_DIR OUT_DIR: writes OUT_DIR/go.mod and OUT_DIR/go.sum, copies of
# BUILD_DIR's with each module replaced by its patched copy under OUT_DIR; the build passes
# -modfile=OUT_DIR/go.mod. Dies with the module's name when a copy does not have the expected shape
# (a new release pinned in go.mod: update this file with it).
lazy_dictionaries() {
  local build=$1 out=$2 module dir copy
  cp "$build/go.mod" "$out/go.mod"
  cp "$build/go.sum" "$out/go.sum"
  for module in github.com/nbutton23/zxcvbn-go github.com/ccojocar/zxcvbn-go; do
    dir=$(cd "$build" && go mod download "$module" && go list -m -f '{{.Dir}}' "$module") || dir=""
    if [ -z "$dir" ] || [ ! -d "$dir" ]; then
      die "could not fetch $module (pinned in scripts/pulumi-build/go.sum) from the Go module proxy"
    fi
    copy="$out/${module//\//_}"
    cp -R "$dir" "$copy"
    chmod -R u+w "$copy"
    # A replacement directory needs a go.mod; nbutton23's predates modules.
    [ -f "$copy/go.mod" ] || printf 'module %s\n\ngo 1.20\n' "$module" >"$copy/go.mod"

    # frequency: the lists are read by Load, once, instead of by init.
    local frequency="$copy/frequency/frequency.go"
    if ! grep -q '^func init() {$' "$frequency" || ! grep -q '^	"encoding/json"$' "$frequency"; then
      die "$module's frequency package no longer has the shape scripts/pulumi-build/lazy-dictionaries.sh patches"
    fi
    sed -i -e 's/^func init() {$/func load() {/' -e 's/^	"encoding\/json"$/	"encoding\/json"\n	"sync"/' "$frequency"
    printf '\nvar loaded sync.Once\n\n// Load reads the lists into Lists the first time it is called.\nfunc Load() { loaded.Do(load) }\n' >>"$frequency"

    # matching: no init; its loader (which Omnimatch calls when nothing is loaded) reads the lists first.
    local matching="$copy/matching/matching.go"
    if ! grep -q '^func init() {$' "$matching" || ! grep -q '^func loadFrequencyList() {$' "$matching"; then
      die "$module's matching package no longer has the shape scripts/pulumi-build/lazy-dictionaries.sh patches"
    fi
    sed -i -e '/^func init() {$/,/^}$/d' -e 's/^func loadFrequencyList() {$/func loadFrequencyList() {\n\tfrequency.Load()/' "$matching"
    if grep -q '^func init()' "$matching"; then
      die "$module's matching package still has an init after the patch"
    fi

    (cd "$build" && go mod edit -replace="$module=$copy" "$out/go.mod")
  done
}
