/**
 * scripts/ensure-toolchain.sh as the installed package runs it: from node_modules/stackwright of
 * an ops repository, with @pulumi/pulumi hoisted beside it, choosing a `pulumi` on PATH by its
 * release. No test here may build the CLI: `go` on PATH is a stub that fails, and the cache is an
 * empty directory of the test's own.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../helpers/scratch-project";

const PINNED = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  }
).dependencies["@pulumi/pulumi"];

describe("ensure-toolchain.sh run from an installed package", () => {
  let work: string;
  let tool: string;
  let stubs: string;

  beforeAll(() => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-toolchain-")));
    const modules = path.join(work, "ops", "node_modules");
    tool = path.join(modules, "stackwright");
    fs.mkdirSync(path.join(tool, "scripts"), { recursive: true });
    for (const entry of ["ensure-toolchain.sh", "lib.sh", "pulumi-build", "pulumi-resource-pulumi-nodejs"]) {
      fs.cpSync(path.join(repoRoot, "scripts", entry), path.join(tool, "scripts", entry), {
        recursive: true,
      });
    }
    fs.copyFileSync(path.join(repoRoot, "package.json"), path.join(tool, "package.json"));
    // Hoisted beside the package, as npm installs it: not under the package's own node_modules.
    fs.symlinkSync(path.join(repoRoot, "node_modules", "@pulumi"), path.join(modules, "@pulumi"));
    stubs = path.join(work, "stubs");
    fs.mkdirSync(stubs);
    fs.writeFileSync(path.join(stubs, "go"), "#!/bin/sh\necho 'go: no Go build in this test' >&2\nexit 1\n", {
      mode: 0o755,
    });
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  /** A directory with a `pulumi` that answers `release`, and its language host beside it or not. */
  const fakeCli = (release: string, withHost = true): string => {
    const dir = fs.mkdtempSync(path.join(work, "cli-"));
    fs.writeFileSync(path.join(dir, "pulumi"), `#!/bin/sh\necho ${release}\n`, { mode: 0o755 });
    if (withHost) fs.writeFileSync(path.join(dir, "pulumi-language-nodejs"), "#!/bin/sh\n", { mode: 0o755 });
    return dir;
  };

  const ensure = (...pathDirs: string[]) => {
    fs.rmSync(path.join(tool, ".tools"), { recursive: true, force: true });
    const cache = fs.mkdtempSync(path.join(work, "cache-"));
    const run = spawnSync("bash", [path.join(tool, "scripts", "ensure-toolchain.sh")], {
      cwd: path.join(work, "ops"),
      encoding: "utf8",
      env: {
        HOME: work,
        STACKWRIGHT_CACHE_DIR: cache,
        PATH: [stubs, ...pathDirs, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
      },
    });
    const linked = path.join(tool, ".tools", "bin", "pulumi");
    return {
      status: run.status,
      stderr: run.stderr,
      linkedTo: fs.existsSync(linked) ? fs.readlinkSync(linked) : undefined,
    };
  };

  it("uses a pulumi on PATH of the pinned major at or above the pinned release, saying which release is pinned", () => {
    const newer = fakeCli("v3.999.1");
    const run = ensure(newer);
    expect(run.stderr).toBe(
      `toolchain: using pulumi v3.999.1 from ${newer} (Stackwright pins and is tested with v${PINNED})\n`,
    );
    expect(run.status).toBe(0);
    expect(run.linkedTo).toBe(path.join(newer, "pulumi"));
    expect(fs.readlinkSync(path.join(tool, ".tools", "bin", "pulumi-language-nodejs"))).toBe(
      path.join(newer, "pulumi-language-nodejs"),
    );
  });

  it("uses the pinned release itself", () => {
    const pinned = fakeCli(`v${PINNED}`);
    expect(ensure(pinned)).toMatchObject({ status: 0, linkedTo: path.join(pinned, "pulumi") });
  });

  it.each([
    ["an older release", "v3.0.0"],
    ["another major", "v4.0.0"],
    ["a pre-release of the pinned one", `v${PINNED}-alpha.1`],
  ])("passes over %s, names what it needs, and goes on to the cache and then the build", (_, release) => {
    const run = ensure(fakeCli(release));
    expect(run.stderr).toContain(`toolchain: not using pulumi ${release} from ${path.join(work, "cli-")}`);
    expect(run.stderr).toContain(`Stackwright needs v3.x at or above v${PINNED}`);
    // No cached build in this test's cache: the build's turn, which the stub refuses.
    expect(run.stderr).toContain("go: no Go build in this test");
    expect(run.status).toBe(1);
    expect(run.linkedTo).toBeUndefined();
  });

  it("passes over a pulumi whose language host is not beside it", () => {
    const lone = fakeCli("v3.999.1", false);
    const host = fakeCli("v3.999.1");
    fs.rmSync(path.join(host, "pulumi"));
    const run = ensure(lone, host);
    expect(run.stderr).not.toContain("using pulumi");
    expect(run.status).toBe(1);
    expect(run.linkedTo).toBeUndefined();
  });
});
