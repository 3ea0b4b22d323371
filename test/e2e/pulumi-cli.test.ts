/**
 * The Pulumi CLI the toolchain provides (.tools/bin/pulumi): built from the module proxy with its
 * password-strength word lists read on first use (scripts/pulumi-build/lazy-dictionaries.sh), it
 * must judge a plain value as the released CLI does. `pulumi config set` refuses a value that
 * looks like a secret: a random string is refused, and a phrase of English words is accepted only
 * because the dictionaries are there (without them its 25 letters count as random). Built without
 * the state backends Stackwright never uses (scripts/pulumi-build/trim-cli.sh), it says so when
 * one is named, where a released CLI asks for the backend's credentials; it compiles its JSON
 * schemas on first use, not at every start; and without the commands that alone needed a
 * Markdown renderer and a syntax highlighter, no process runs their inits.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { fixtures } from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";

const test = fixtures();
const PULUMI = path.join(repoRoot, ".tools", "bin", "pulumi");

/** `pulumi ARGS` to its end (bounded), with this PATH, no update check and `env`. */
function runPulumi(args: readonly string[], env: Readonly<Record<string, string>> = {}, cwd?: string) {
  return spawnSync(PULUMI, args, {
    ...(cwd === undefined ? {} : { cwd }),
    env: { PATH: process.env["PATH"] ?? "", PULUMI_SKIP_UPDATE_CHECK: "true", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("the Pulumi CLI of the toolchain", () => {
  test("judges plain config values with its dictionaries, as the released CLI does", ({ scratchDir }) => {
    fs.writeFileSync(path.join(scratchDir, "Pulumi.yaml"), "name: lists\nruntime: nodejs\n");
    fs.mkdirSync(path.join(scratchDir, "state"));
    const env = {
      HOME: scratchDir,
      PULUMI_HOME: path.join(scratchDir, ".pulumi-home"),
      PULUMI_BACKEND_URL: `file://${path.join(scratchDir, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "lists",
    };
    const pulumi = (...args: string[]) => runPulumi([...args, "--non-interactive"], env, scratchDir);

    expect(pulumi("stack", "init", "dev").status).toBe(0);
    const words = pulumi("config", "set", "apiToken", "correcthorsebatterystaple");
    expect(words.stderr).toBe("");
    expect(words.status).toBe(0);
    const random = pulumi("config", "set", "apiToken", "x8Fq2LpZ9vR4tW7yK3mN6bC1");
    expect(random.status).not.toBe(0);
    expect(random.stderr).toContain("looks like a secret; rerun with --secret");
  }, 120_000);

  // Only the CLI this project builds is trimmed (scripts/pulumi-build/trim-cli.sh); a released
  // one found on PATH keeps every backend. CI has none on PATH, so there it always runs.
  const built = fs.realpathSync(PULUMI).includes(`${path.sep}pulumi-v`);
  test.runIf(built)(
    "names a state backend its build leaves out, instead of asking for a Pulumi Cloud token",
    ({ scratchDir }) => {
      fs.writeFileSync(path.join(scratchDir, "Pulumi.yaml"), "name: trimmed\nruntime: nodejs\n");
      for (const url of ["gs://bucket", "azblob://container", "postgres://db.example/state"]) {
        const login = runPulumi(
          ["login", url, "--non-interactive"],
          { HOME: scratchDir, PULUMI_HOME: path.join(scratchDir, ".pulumi-home") },
          scratchDir,
        );
        expect(login.status, url).not.toBe(0);
        expect(login.stderr, url).toContain(
          `built by Stackwright without the ${url.split(":")[0]}:// state backend`,
        );
        expect(login.stderr, url).not.toContain("PULUMI_ACCESS_TOKEN");
      }
    },
    120_000,
  );

  // Go's init trace counts what each package's init allocates, the same on every run: compiling
  // either schema made tens of thousands of allocations (43,333 and 29,842 in v3.259.0) in every
  // command the CLI ran, `pulumi version` included.
  test.runIf(built)("compiles its JSON schemas when one is used, not when any command starts", () => {
    const run = runPulumi(["version"], { GODEBUG: "inittrace=1" });
    expect(run.status, run.stderr).toBe(0);
    const allocsOf = (pkg: string): number => {
      const line = run.stderr.split("\n").find((l) => l.startsWith(`init ${pkg} @`));
      const allocs = /, (\d+) allocs$/.exec(line ?? "")?.[1];
      if (allocs === undefined) throw new Error(`no init trace line for ${pkg} in:\n${run.stderr}`);
      return Number(allocs);
    };
    expect(allocsOf("github.com/pulumi/pulumi/pkg/v3/codegen/schema")).toBeLessThan(5_000);
    expect(allocsOf("github.com/pulumi/pulumi/pkg/v3/resource/stack")).toBeLessThan(1_000);
  });

  // `pulumi env`, `config env`, `neo`, `package` and `do` alone imported the Markdown renderer,
  // the syntax highlighter and the HTML sanitizer, whose inits took about 40 ms of every process.
  test.runIf(built)(
    "runs no renderer's init in any command, having left out the commands that needed them",
    () => {
      const run = runPulumi(["version"], { GODEBUG: "inittrace=1" });
      expect(run.status, run.stderr).toBe(0);
      const inits = run.stderr.split("\n").filter((l) => l.startsWith("init "));
      expect(inits.length).toBeGreaterThan(100);
      const renderers =
        /^init (github\.com\/(alecthomas\/chroma|charmbracelet\/glamour|microcosm-cc\/bluemonday|yuin\/goldmark)|github\.com\/pulumi\/pulumi\/pkg\/v3\/cmd\/esc\/cli )/;
      expect(inits.filter((l) => renderers.test(l))).toEqual([]);
      for (const args of [["env", "ls"], ["config", "env", "ls"], ["neo"]]) {
        const left = runPulumi(args);
        expect(left.status, args.join(" ")).not.toBe(0);
        expect(left.stderr, args.join(" ")).toMatch(/unknown command/);
      }
    },
  );
});
