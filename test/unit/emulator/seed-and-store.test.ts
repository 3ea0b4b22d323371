import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type SeedInput, loadSeed } from "../../../src/emulator";
import { Store } from "../../../src/emulator/store";
import { TEST_SEED_PATH } from "../../helpers/emulator";

const dir = mkdtempSync(join(tmpdir(), "stackwright-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const minimal: SeedInput = {
  users: [{ email: "a@example.com", token: "t" }],
  stacks: [
    {
      name: "s",
      members: [{ email: "a@example.com", role: "Stack Manager" }],
      environments: [{ name: "e", usage: "UAT", build_sha: SHA }],
    },
  ],
};

describe("seed", () => {
  it("loads the test seed file", () => {
    const seed = loadSeed(TEST_SEED_PATH);
    expect(seed.stacks.map((s) => s.name)).toEqual(["acme-web", "acme-intranet"]);
  });

  it("reports every problem with its path", () => {
    const bad = {
      users: [{ email: "a@example.com", token: "t" }],
      stacks: [
        {
          name: "s/x",
          members: [{ email: "b@example.com", role: "Owner" }],
          environments: [{ name: "e", usage: "UAT", build_sha: 123, colour: "red" }],
        },
      ],
    };
    const load = () => loadSeed(bad as unknown as SeedInput);
    expect(load).toThrow(/stacks\.0\.name: expected letters/);
    expect(load).toThrow(/stacks\.0\.members\.0\.role/);
    expect(load).toThrow(/stacks\.0\.environments\.0\.build_sha/);
    expect(load).toThrow(/stacks\.0\.environments\.0: Unrecognized key: "colour"/);
  });

  it("refuses members who are not seed users", () => {
    const seed: SeedInput = { ...minimal, users: [{ email: "z@example.com", token: "t" }] };
    expect(() => loadSeed(seed)).toThrow(
      /stacks\.0\.members\.0\.email: 'a@example.com' is not one of the seed users/,
    );
  });
});

describe("state file", () => {
  it("keeps changes across reopening", () => {
    const file = join(dir, "keep.db");
    const first = new Store(loadSeed(minimal), file);
    const id = first.tx(() => first.nextId("fetch"));
    first.tx(() => first.saveFetch({ id, stack: "s", status: "Complete", created: 1 }));
    first.close();
    const second = new Store(loadSeed(minimal), file);
    expect(second.fetches.get(id)?.status).toBe("Complete");
    expect(second.nextId("fetch")).toBe(id + 1);
    second.close();
  });

  it("refuses a file written for another seed, naming the file", () => {
    const file = join(dir, "other.db");
    new Store(loadSeed(minimal), file).close();
    const changed: SeedInput = {
      ...minimal,
      users: [...(minimal.users ?? []), { email: "c@example.com", token: "u" }],
    };
    expect(() => new Store(loadSeed(changed), file)).toThrow(
      `state file ${file}: it was written for a different seed`,
    );
  });

  it("refuses a file that is not a database, naming the file", () => {
    const file = join(dir, "garbage.db");
    writeFileSync(file, "this is not a database, just some text that is long enough ".repeat(20));
    expect(() => new Store(loadSeed(minimal), file)).toThrow(`state file ${file}:`);
  });
});
