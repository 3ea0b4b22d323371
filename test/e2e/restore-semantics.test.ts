/**
 * A restore runs when its entry first appears or one of its own settings changes, through the
 * real `stackwright`, engine and emulator: a snapshot's notes edited, or the snapshot taken anew,
 * never runs it again (issue 27: a note's typo fix re-ran a restore, overwriting uat's data).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect } from "vitest";
import { fixtures } from "../helpers/fixtures";

const file = (snapshot: { notes: string; mode: string }, trigger: string) => `stack: acme-web
environments:
  uat:
    snapshots:
      nightly-db:
        mode: ${snapshot.mode}
        notes: ${snapshot.notes}
        retain: true
    restores:
      from-nightly:
        snapshot: nightly-db
        mode: db
        confirm: uat
        trigger: "${trigger}"
`;

const test = fixtures({
  project: { stacksConfig: { "acme-web.yaml": file({ notes: "before release", mode: "db" }, "t0") } },
}).extend(
  "transfers",
  { scope: "file" },
  ({ emulator }) =>
    async (direction: string) =>
      (await emulator.hooks.transfers("acme-web")).filter((t) => t.direction === direction),
);

describe("a restore of a declared snapshot", () => {
  const write = (dir: string, text: string) =>
    fs.writeFileSync(path.join(dir, "stacks-config", "acme-web.yaml"), text);

  /** The restore's outputs as the checkpoint records them. */
  const recordedRestore = (stateFile: string): unknown => {
    const checkpoint = JSON.parse(fs.readFileSync(stateFile, "utf8")) as {
      checkpoint: { latest: { resources: { urn: string; outputs?: Record<string, unknown> }[] } };
    };
    const restore = checkpoint.checkpoint.latest.resources.find((r) => r.urn.endsWith("/from-nightly"));
    const { __provider: _text, ...outputs } = restore?.outputs ?? {};
    return outputs;
  };

  test("runs once, and an edit of only the snapshot's notes neither runs it again nor takes a snapshot", async ({
    project,
    transfers,
    stackwright: run,
  }) => {
    const first = await run(["up"]);
    expect(first.status, first.out).toBe(0);
    expect(await transfers("restore")).toHaveLength(1);
    expect(await transfers("create")).toHaveLength(1);

    write(project.dir, file({ notes: "before the release", mode: "db" }, "t0"));
    const summary = path.join(project.dir, "preview.md");
    const preview = await run(["preview", "--summary", summary]);
    expect(preview.status, preview.out).toBe(0);
    const up = await run(["up"]);
    expect(up.status, up.out).toBe(0);
    // What matters first: the platform saw no second restore and no second snapshot.
    expect(await transfers("restore")).toHaveLength(1);
    expect(await transfers("create")).toHaveLength(1);
    // And the preview said what the notes edit does.
    expect(preview.out).toContain("the new notes apply to the next snapshot taken");
    expect(preview.out).not.toMatch(/SnapshotRestore.*replace/);
    const comment = fs.readFileSync(summary, "utf8");
    expect(comment).toContain("new notes apply to the next snapshot taken; nothing is taken");
    expect(comment).not.toMatch(/\| restore \|/);
  }, 480_000);

  test("is not run again when its snapshot is taken anew, and keeps the id it restored from", async ({
    project,
    transfers,
    stackwright: run,
  }) => {
    write(project.dir, file({ notes: "before the release", mode: "all" }, "t0"));
    const summary = path.join(project.dir, "preview.md");
    const preview = await run(["preview", "--summary", summary]);
    expect(preview.status, preview.out).toBe(0);
    expect(fs.readFileSync(summary, "utf8")).toMatch(
      /`from-nightly` records `nightly-db` taken anew; nothing is restored/,
    );

    const up = await run(["up"]);
    expect(up.status, up.out).toBe(0);
    expect(up.out).toMatch(/does not run again: snapshot nightly-db is taken anew/);
    expect(await transfers("create")).toHaveLength(2);
    const restores = await transfers("restore");
    expect(restores).toHaveLength(1);
    expect(recordedRestore(project.stateFile("dev.acme-web"))).toMatchObject({
      restored_snapshot_id: String(restores[0]?.snapshot),
      snapshot_id: String((await transfers("create"))[1]?.snapshot ?? "?"),
    });
  }, 480_000);

  test("runs again when its own trigger changes", async ({ project, transfers, stackwright: run }) => {
    write(project.dir, file({ notes: "before the release", mode: "all" }, "t1"));
    const up = await run(["up"]);
    expect(up.status, up.out).toBe(0);
    expect(await transfers("restore")).toHaveLength(2);
  }, 480_000);
});
