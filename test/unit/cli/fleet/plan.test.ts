import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planRun, type PlanTarget } from "../../../../src/cli/fleet/plan";
import { ConfigValidationError, loadDesiredState } from "../../../../src/config";

const file = (stack: string, ref = "main") =>
  `stack: ${stack}\nenvironments:\n  dev:\n    deployment: { ref_type: branch, ref: ${ref} }\n`;
/** Valid YAML that declares its stack but breaks the schema. */
const broken = (stack: string) =>
  `stack: ${stack}\nenvironments:\n  dev:\n    deployment: { ref_type: nope }\n`;

let dir: string;
/** The per-file stacks the plan asked the backend about, in order. */
let asked: string[];
/** The per-file stacks the fake backend holds. */
let held: Set<string>;

const target = (): PlanTarget => ({
  projectDir: dir,
  name: "dev",
  stacks: {
    has: (name) => {
      asked.push(name);
      return Promise.resolve(held.has(name));
    },
    resourceCount: () => Promise.resolve(0),
  },
});
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, "stacks-config", name), text);
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd: dir,
    stdio: "ignore",
  });
const plan = (input: { names?: string[]; changedSince?: string }) =>
  planRun(target(), { names: [], destroyDeleted: false, destroying: false, ...input });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-plan-"));
  asked = [];
  held = new Set();
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: stackwright\nruntime: nodejs\n");
  fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config: {}\n");
  fs.mkdirSync(path.join(dir, "stacks-config"));
  for (const s of ["a", "b", "c"]) write(`${s}.yaml`, file(s));
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "fleet");
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("the plan of a run of some files", () => {
  it("parses only the changed files: an error in a file it does not run stops nothing, and validate still reports it", async () => {
    write("c.yaml", broken("c"));
    git("commit", "-qam", "c broken");
    write("a.yaml", file("a", "release"));
    const planned = await plan({ changedSince: "HEAD" });
    expect(planned.jobs.map((j) => j.stackName)).toEqual(["dev.a"]);
    expect(planned.state?.stacks.map((s) => s.stack)).toEqual(["a"]);
    expect(planned.description).toBe("1 of 3 changed since HEAD");
    expect((await loadDesiredState(path.join(dir, "stacks-config"))).ok).toBe(false);
  });

  it("stops on an error in a changed file", async () => {
    write("a.yaml", broken("a"));
    await expect(plan({ changedSince: "HEAD" })).rejects.toBeInstanceOf(ConfigValidationError);
  });

  it("validates every file when a shared file changed, since that selects all", async () => {
    write("c.yaml", broken("c"));
    git("commit", "-qam", "c broken");
    fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "config: {a: 1}\n");
    await expect(plan({ changedSince: "HEAD" })).rejects.toBeInstanceOf(ConfigValidationError);
  });

  it("lists a deleted file's stack when the backend holds it, asking the backend about that stack alone", async () => {
    held = new Set(["dev.a", "dev.b", "dev.c"]);
    fs.rmSync(path.join(dir, "stacks-config", "b.yaml"));
    const planned = await plan({ changedSince: "HEAD" });
    expect(planned.jobs).toEqual([]);
    expect(planned.kept).toEqual(["dev.b"]);
    expect(asked).toEqual(["dev.b"]);
  });

  it("does not take a stack for deleted when another file declares it now", async () => {
    fs.rmSync(path.join(dir, "stacks-config", "b.yaml"));
    write("b2.yaml", file("b", "release"));
    const planned = await plan({ changedSince: "HEAD" });
    expect(planned.jobs.map((j) => j.stackName)).toEqual(["dev.b"]);
    expect(planned.kept).toEqual([]);
  });

  it("parses only the named files, and names every API stack when a name is unknown", async () => {
    write("c.yaml", broken("c"));
    const planned = await plan({ names: ["b"] });
    expect(planned.jobs.map((j) => j.stackName)).toEqual(["dev.b"]);
    await expect(plan({ names: ["zz"] })).rejects.toThrow("the API stacks are: a, b, c");
  });

  it("loads every file, as a run of all does, when a file's stack cannot be read from its `stack:` line", async () => {
    write("c.yaml", `"stack": c\n${file("c").split("\n").slice(1).join("\n")}`);
    git("commit", "-qam", "c quoted");
    write("a.yaml", file("a", "release"));
    const planned = await plan({ changedSince: "HEAD" });
    expect(planned.jobs.map((j) => j.stackName)).toEqual(["dev.a"]);
    expect(planned.state?.stacks.map((s) => s.stack)).toEqual(["a", "b", "c"]);
  });
});
