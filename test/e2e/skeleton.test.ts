import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import type { Stack } from "@pulumi/pulumi/automation";
import { fixtures } from "../helpers/fixtures";
import { repoRoot, type ScratchProject } from "../helpers/scratch-project";

const test = fixtures({
  project: { program: path.join(repoRoot, "test", "fixtures", "skeleton-program", "index.js") },
});

// The real CLI, our language host and our dynamic-provider plugin, in their own processes.
describe("the Pulumi engine on a scratch copy of the project", () => {
  let project: ScratchProject;
  let stack: Stack;

  test.beforeAll(async ({ project: scratch }) => {
    project = scratch;
    stack = await project.stack("e2e");
  }, 120_000);

  test("previews one dynamic resource to create", async () => {
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ create: 2 });
  }, 120_000);

  test("creates it on up, running the program and the provider on Node 24", async () => {
    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    expect(up.outputs["message"]?.value).toBe("hello");
    expect(up.outputs["programNode"]?.value).toMatch(/^v24\./);
    expect(up.outputs["providerNode"]?.value).toMatch(/^v24\./);
  }, 120_000);

  test("starts the program's Node with the project's nodeargs, as Pulumi's language host does", async () => {
    const outputs = await stack.outputs();
    expect(outputs["programExecArgv"]?.value).toEqual(["--require", path.join(project.dir, "preload.cjs")]);
  }, 120_000);

  test("stores the provider serialized by the SDK in the state file", () => {
    const state = fs.readFileSync(project.stateFile("e2e"), "utf8");
    const resource = JSON.parse(state).checkpoint.latest.resources.find(
      (r: { type: string }) => r.type === "pulumi-nodejs:dynamic/stackwright:Echo",
    );
    expect(resource?.inputs?.__provider).toContain("echo-");
  });

  test("reports no changes on a second up", async () => {
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 2 });
  }, 120_000);

  test("replaces the resource when its input changes", async () => {
    await stack.setConfig("message", { value: "goodbye" });
    const up = await stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 1, replace: 1 });
    expect(up.outputs["message"]?.value).toBe("goodbye");
  }, 120_000);

  test("deletes everything on destroy", async () => {
    const destroy = await stack.destroy();
    expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
  }, 120_000);
});
