import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planPin } from "../../../src/cli/release/pin-change";

const dir = mkdtempSync(join(tmpdir(), "sw-pin-sha-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "acme-web.yaml");
const TEXT = "stack: acme-web\nenvironments:\n  prod:\n    deployment:\n      ref_type: promote_from_uat\n";
writeFileSync(file, TEXT);

const plan = (sha: string) =>
  planPin({
    apiStack: "acme-web",
    environment: "prod",
    file,
    flags: {},
    sha,
    shaFrom: "acme-web/uat's deployment 42",
    title: "Promote from uat",
    overrides: [],
    refusals: [],
    summary: "",
    now: new Date("2026-11-24T09:00:00Z"),
  });

describe("a sha from the platform that promote and rollback would pin", () => {
  it.each(["main", "--upload-pack=touch /tmp/pwned", "8f3c2a1\nSigned-off-by: someone", "8F3C2A1D"])(
    "is refused when it is %j, with one line naming the deployment, and nothing is planned",
    async (sha) => {
      const planned = await plan(sha);
      expect(planned.outcome).toBeUndefined();
      expect(planned.refusals).toHaveLength(1);
      const [line = ""] = planned.refusals;
      expect(line).toMatch(
        /^acme-web\/uat's deployment 42 has the sha ".*" on the platform, which is not a commit sha \(7 to 40 lowercase hex digits\); nothing was pinned to it$/,
      );
      expect(line).not.toContain("\n");
      expect(readFileSync(file, "utf8")).toBe(TEXT);
    },
  );

  it("is pinned when it is a commit sha", async () => {
    const planned = await plan("8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a");
    expect(planned.refusals).toEqual([]);
    expect(planned.outcome?.changed).toBe(true);
  });
});
