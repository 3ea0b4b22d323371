import { describe, expect, it } from "vitest";
import { engineArgs, parseEventLog } from "../../../../src/cli/engine/run";

describe("the engine run of one stack", () => {
  it("passes the arguments the Automation API passes for each operation", () => {
    expect(engineArgs("preview", {})).toEqual(["preview"]);
    expect(engineArgs("up", {})).toEqual(["up", "--yes", "--skip-preview"]);
    expect(engineArgs("refresh", { refresh: true })).toEqual(["refresh", "--yes", "--skip-preview"]);
    expect(engineArgs("destroy", {})).toEqual(["destroy", "--yes", "--skip-preview"]);
    expect(engineArgs("destroy", { previewOnly: true })).toEqual(["destroy", "--preview-only"]);
    expect(engineArgs("up", { refresh: true, parallel: 4, configFile: "/p/Pulumi.dev.yaml" })).toEqual([
      "up",
      "--yes",
      "--skip-preview",
      "--refresh",
      "--parallel",
      "4",
      "--config-file",
      "/p/Pulumi.dev.yaml",
    ]);
  });

  it("reads every event of the log in order and leaves out a line cut short by a dying engine", () => {
    const log = [
      JSON.stringify({ sequence: 0, timestamp: 1, cancelEvent: {} }),
      "",
      JSON.stringify({ sequence: 1, timestamp: 2, summaryEvent: { resourceChanges: { same: 3 } } }),
      JSON.stringify({ note: "not an event" }),
      '{"sequence": 2, "timest',
    ].join("\n");
    const events = parseEventLog(log);
    expect(events.map((e) => e.sequence)).toEqual([0, 1]);
    expect(events[1]?.summaryEvent?.resourceChanges).toEqual({ same: 3 });
  });
});
