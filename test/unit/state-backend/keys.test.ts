import { describe, expect, it } from "vitest";
import { checkpointKeys, isLegacyCheckpointKey } from "../../../src/state-backend/keys";

describe("the keys of the state backend", () => {
  it("name a stack's checkpoint under its project, plain, gzip and zstd", () => {
    expect(checkpointKeys("stackwright", "dev.acme-web")).toEqual({
      plain: ".pulumi/stacks/stackwright/dev.acme-web.json",
      gzip: ".pulumi/stacks/stackwright/dev.acme-web.json.gz",
      zstd: ".pulumi/stacks/stackwright/dev.acme-web.json.zst",
    });
  });

  it("tell a legacy-layout checkpoint, in any compression, from a project's and from what is beside it", () => {
    for (const key of [
      ".pulumi/stacks/dev.json",
      ".pulumi/stacks/dev.json.gz",
      ".pulumi/stacks/dev.json.zst",
    ]) {
      expect(isLegacyCheckpointKey(key), key).toBe(true);
    }
    for (const key of [
      ".pulumi/stacks/stackwright/dev.json",
      ".pulumi/stacks/dev.json.attrs",
      ".pulumi/stacks/dev.json.bak",
      ".pulumi/stacks/.json",
      ".pulumi/stacks/stackwright",
      ".pulumi/meta.yaml",
    ]) {
      expect(isLegacyCheckpointKey(key), key).toBe(false);
    }
  });
});
