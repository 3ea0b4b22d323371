/**
 * The release moves end to end, through the `stackwright` command and the real engine: promote
 * uat → prod changes the file, `preview` then shows one redeploy of prod with uat's sha, `up`
 * makes exactly that deployment, after which `status` shows prod in sync with uat's sha;
 * `rollback --up` pins prod back and deploys exactly the pinned sha at once. Checked on the
 * emulator's own records.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import type { StackwrightClient } from "../../src/client";
import type { FleetStatus } from "../../src/observe";
import { fixtures } from "../helpers/fixtures";
import type { ScratchProject } from "../helpers/scratch-project";
import { runInProject } from "../helpers/in-process";

/** Of the test seed: the branch uat deploys, and prod's release tag. */
const RELEASE_BRANCH_SHA = "2b7e151628aed2a6abf7158809cf4f3c762e7160";
const TAG_SHA = "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f";

const ACME_WEB = `stack: acme-web
environments:
  uat:
    deployment: { ref_type: branch, ref: release/2026-11, title: Deploy the release branch }
  prod:
    # prod runs the release tag until something is promoted
    deployment:
      ref_type: tag
      ref: v1.4.0
      title: Release 1.4.0
`;

const test = fixtures({ project: { stacksConfig: { "acme-web.yaml": ACME_WEB } } });

describe("promote and roll back through the engine", () => {
  let project: ScratchProject;
  let client: StackwrightClient;
  let env: Record<string, string>;
  const file = () => path.join(project.dir, "stacks-config", "acme-web.yaml");

  const run = async (args: string[]) => {
    const { status, out } = await runInProject(project.dir, [...args, "--project", project.dir], {
      ...project.env,
      ...env,
    });
    expect(out).not.toContain("demo-token");
    return { status, out };
  };
  const prod = async () => {
    const list = await client.deployments.list("acme-web", "prod");
    return list.sort((a, b) => Number(b.id) - Number(a.id));
  };

  test.beforeAll(async ({ project: scratch, emulatorInProcess, client: operators }) => {
    [project, env, client] = [scratch, emulatorInProcess.env, operators];
    const first = await run(["up", "acme-web"]);
    expect(first.status, first.out).toBe(0);
  }, 240_000);

  test("promotes uat to prod as a file change that preview shows as one redeploy, up makes, and status then shows in sync", async () => {
    const before = (await prod()).length;
    const promoted = await run(["promote", "acme-web", "--from", "uat", "--to", "prod"]);
    expect(promoted.status, promoted.out).toBe(0);
    expect(fs.readFileSync(file(), "utf8")).toBe(
      ACME_WEB.replace(
        "      ref_type: tag\n      ref: v1.4.0\n      title: Release 1.4.0\n",
        `      ref_type: sha\n      ref: ${RELEASE_BRANCH_SHA}\n      title: Promote 2b7e151 from uat\n`,
      ),
    );
    expect((await prod()).length).toBe(before);

    const summary = path.join(project.dir, "preview.md");
    const preview = await run(["preview", "acme-web", "--summary", summary]);
    expect(preview.status, preview.out).toBe(0);
    const text = fs.readFileSync(summary, "utf8");
    expect(text).toContain("1 redeploy");
    expect(text).not.toMatch(/\d+ deploy\b/);
    const rows = text.split("\n").filter((line) => line.includes("redeploy") && line.startsWith("|"));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain("prod");
    expect(rows[0]).toContain(RELEASE_BRANCH_SHA.slice(0, 7));

    const up = await run(["up", "acme-web"]);
    expect(up.status, up.out).toBe(0);
    const after = await prod();
    expect(after).toHaveLength(before + 1);
    expect(after[0]?.attributes).toMatchObject({
      sha: RELEASE_BRANCH_SHA,
      state: "Completed",
      title: "Promote 2b7e151 from uat",
    });
    expect((await client.environments.get("acme-web", "prod")).attributes.build_sha).toBe(RELEASE_BRANCH_SHA);

    // What an operator checks next: prod in sync, running what uat runs.
    const json = path.join(project.dir, "status.json");
    const status = await run(["status", "acme-web", "--json", json]);
    expect(status.status, status.out).toBe(0);
    const fleet = JSON.parse(fs.readFileSync(json, "utf8")) as FleetStatus;
    const environments = fleet.stacks.find((s) => s.stack === "acme-web")?.environments ?? [];
    const of = (name: string) => environments.find((e) => e.environment === name);
    expect(of("prod")).toMatchObject({ sync: "in sync", live: { sha: RELEASE_BRANCH_SHA } });
    expect(of("uat")?.live?.sha).toBe(RELEASE_BRANCH_SHA);
    expect(status.out).toMatch(/^acme-web\s+prod\s+in sync\s+sha 2b7e151/m);
  }, 600_000);

  test("rolls prod back with --up: the file is pinned and exactly that sha is deployed at once", async () => {
    const before = (await prod()).length;
    const rolled = await run(["rollback", "acme-web", "prod", "--up"]);
    expect(rolled.status, rolled.out).toBe(0);
    expect(fs.readFileSync(file(), "utf8")).toContain(
      `      ref_type: sha\n      ref: ${TAG_SHA}\n      title: Roll back to 3c4d5e6 (was 2b7e151)\n`,
    );
    expect(rolled.out).toContain("acme-web/prod runs 3c4d5e6 now. The change to ");
    expect(rolled.out).toContain("is not committed");
    const after = await prod();
    expect(after).toHaveLength(before + 1);
    expect(after[0]?.attributes).toMatchObject({
      sha: TAG_SHA,
      state: "Completed",
      title: "Roll back to 3c4d5e6 (was 2b7e151)",
    });
    expect((await client.environments.get("acme-web", "prod")).attributes.build_sha).toBe(TAG_SHA);
  }, 600_000);
});
