# shellcheck shell=bash
# Sourced by scripts/ensure-toolchain.sh before the Pulumi CLI's build.
#
# The CLI built here leaves out what Stackwright never runs and what its state could not use:
#   - `pulumi api` (the Pulumi Cloud REST client): its OpenAPI library (pb33f/libopenapi) was the
#     largest single part of the build;
#   - the azblob://, gs:// and postgres:// state backends: Stackwright keeps state in a directory
#     or an S3 bucket (src/state-backend/store.ts reads no other), and Google Cloud Storage's
#     client brought gRPC's xDS and Envoy's API with it;
#   - `pulumi logs` for AWS and GCP resources (CloudWatch Logs, Cloud Logging);
#   - `pulumi env` and `pulumi config env` (Pulumi ESC's command line), `pulumi neo` (the AI
#     agent), `pulumi package` and `pulumi do`: they alone brought the Markdown renderer
#     (glamour), the syntax highlighter (chroma) and the HTML sanitizer (bluemonday), whose init
#     functions built their tables in every `pulumi` process. A stack whose config imports an ESC
#     environment still opens (that needs Pulumi Cloud, as before).
# What remains is the released CLI's code: the engine, file:// and s3:// state, and every secrets
# provider (passphrase, awskms, azurekeyvault, gcpkms, hashivault). Measured with -debug-trace on
# the 2-core machine (one build, empty build cache): the packages it no longer compiles took 149
# of the build's 415 seconds of compile actions; the commands of the last item, 23.5 of the 272
# left, and in every `pulumi` process about 40 ms of CPU (`pulumi version` 0.122 -> 0.079
# CPU-seconds, `pulumi config --json` 0.117 -> 0.078: medians of 20 to 40, interleaved), which
# a test run's 500 such processes pay. A team that needs the rest installs the released CLI
# (ensure-toolchain.sh prefers one on PATH).
#
# The patch also compiles two JSON schemas on first use rather than in init functions (the package
# schema's meta-schema, used only to bind a package schema, and the deployment schema, used only
# by ValidateUntypedDeployment): GODEBUG=inittrace=1 put them at 41 of the 105 ms that every
# command of the CLI spent in init functions, and Stackwright runs the CLI several times per stack
# and run. `pulumi version`: 0.139 -> 0.110 CPU-seconds (medians of 30, interleaved).
#
# trim_cli BUILD_DIR OUT_DIR: copies github.com/pulumi/pulumi/pkg/v3 (as the module proxy serves
# it, pinned in BUILD_DIR/go.sum; without its tests) into OUT_DIR, removes the files named below,
# applies BUILD_DIR/trim-cli.patch, and points OUT_DIR/go.mod (written by lazy_dictionaries) at the
# copy. Dies naming the file when the copy does not have the expected shape (a new release pinned
# in go.mod: update the patch with it).
trim_cli() {
  local build=$1 out=$2 module=github.com/pulumi/pulumi/pkg/v3 dir copy file
  dir=$(cd "$build" && go mod download "$module" && go list -m -f '{{.Dir}}' "$module") || dir=""
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    die "could not fetch $module (pinned in scripts/pulumi-build/go.sum) from the Go module proxy"
  fi
  copy="$out/${module//\//_}"
  mkdir "$copy"
  tar -C "$dir" --exclude=testdata --exclude='*_test.go' -cf - . | tar -C "$copy" -xf -
  chmod -R u+w "$copy"

  # `pulumi api`: the package keeps only what other commands use (ResolveContext, and APIError,
  # which the patch declares again); the AWS and GCP log readers go with their callers.
  for file in "$copy"/cmd/pulumi/cloud/*.go "$copy"/operations/operations_aws.go "$copy"/operations/operations_gcp.go; do
    [ -f "$file" ] || die "$module no longer has ${file#"$copy"/}, which scripts/pulumi-build/trim-cli.sh removes: update it for the release pinned in go.mod"
    [ "$file" = "$copy/cmd/pulumi/cloud/resolve.go" ] || rm "$file"
  done
  [ -f "$copy/cmd/pulumi/cloud/resolve.go" ] ||
    die "$module no longer has cmd/pulumi/cloud/resolve.go: update scripts/pulumi-build/trim-cli.sh for the release pinned in go.mod"

  # `pulumi config env`: its files go (the patch declares again the one error the rest of the
  # package uses), and what opening a stack with an ESC environment needs of the ESC command line,
  # PrepareEnvironment, moves to a package of its own, so that the config command no longer
  # imports that command line (and its Markdown and syntax-highlighting renderers).
  for file in config_env.go config_env_add.go config_env_init.go config_env_list.go config_env_remove.go; do
    [ -f "$copy/cmd/pulumi/config/$file" ] ||
      die "$module no longer has cmd/pulumi/config/$file, which scripts/pulumi-build/trim-cli.sh removes: update it for the release pinned in go.mod"
    rm "$copy/cmd/pulumi/config/$file"
  done
  [ ! -e "$copy/cmd/esc/prepare" ] ||
    die "$module now has cmd/esc/prepare, where scripts/pulumi-build/trim-cli.sh puts PrepareEnvironment: update it for the release pinned in go.mod"
  mkdir "$copy/cmd/esc/prepare"
  for file in prepare.go fs.go; do
    grep -q '^package cli$' "$copy/cmd/esc/cli/$file" 2>/dev/null ||
      die "$module no longer has cmd/esc/cli/$file in package cli, which scripts/pulumi-build/trim-cli.sh moves: update it for the release pinned in go.mod"
    sed 's/^package cli$/package prepare/' "$copy/cmd/esc/cli/$file" >"$copy/cmd/esc/prepare/$file"
  done

  # git apply as a plain patch program: the ceiling keeps it from taking a repository above the
  # copy (a cache directory inside a checkout) for the one to patch.
  if ! GIT_CEILING_DIRECTORIES=$out git -C "$copy" apply --check "$build/trim-cli.patch" 2>"$out/patch.err"; then
    die "scripts/pulumi-build/trim-cli.patch does not apply to $module ($(head -n 1 "$out/patch.err")): update it for the release pinned in go.mod"
  fi
  GIT_CEILING_DIRECTORIES=$out git -C "$copy" apply "$build/trim-cli.patch"

  (cd "$build" && go mod edit -replace="$module=$copy" "$out/go.mod")
}
