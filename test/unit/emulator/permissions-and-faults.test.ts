import { describe, expect, it } from "vitest";
import { Faults, matchPath } from "../../../src/emulator/faults";
import { isAllowed } from "../../../src/emulator/permissions";
import { stepDelay } from "../../../src/emulator/scheduler";

describe("roles", () => {
  it("let managers do everything", () => {
    for (const role of ["Stack Manager", "Release Manager"] as const) {
      for (const action of ["deploy", "bypass", "approve", "snapshot", "restore", "lock"] as const) {
        expect(isAllowed(role, action, true)).toBe(true);
      }
    }
  });

  it("keep Deployers from approving and locking", () => {
    expect(isAllowed("Deployer", "bypass", true)).toBe(true);
    expect(isAllowed("Deployer", "restore", true)).toBe(true);
    expect(isAllowed("Deployer", "approve", false)).toBe(false);
    expect(isAllowed("Deployer", "lock", false)).toBe(false);
  });

  it("keep Team Members to non-production", () => {
    expect(isAllowed("Team Member", "deploy", false)).toBe(true);
    expect(isAllowed("Team Member", "bypass", false)).toBe(true);
    expect(isAllowed("Team Member", "deploy", true)).toBe(false);
    expect(isAllowed("Team Member", "snapshot", true)).toBe(false);
    expect(isAllowed("Team Member", "restore", true)).toBe(false);
    expect(isAllowed("Team Member", "lock", false)).toBe(false);
  });
});

describe("fault path patterns", () => {
  const seg = (p: string) => p.split("/").filter((s) => s !== "");
  it.each([
    ["/svc/meta", "/svc/meta", true],
    ["/svc/*", "/svc/meta", true],
    ["/svc/*", "/svc/project/x", false],
    ["/svc/**", "/svc/project/x/environment/y", true],
    ["/svc/**", "/svc", true],
    ["/svc/project/*/snapshots/**", "/svc/project/a/snapshots/transfer/5", true],
    ["/svc/project/*/snapshots/**", "/svc/project/a/team", false],
    ["/**/deploys", "/svc/project/a/environment/b/deploys", true],
  ])("%s matches %s: %s", (pattern, path, expected) => {
    expect(matchPath(seg(pattern), seg(path))).toBe(expected);
  });

  it("consume one use per matching request, first added first", () => {
    const faults = new Faults();
    const a = faults.add({ path: "/svc/**", kind: "drop", count: 1, phase: "before" });
    const b = faults.add({ method: "GET", path: "/svc/meta", kind: "drop", count: 2, phase: "before" });
    expect(faults.take("GET", "/svc/meta")?.id).toBe(a.id);
    expect(faults.take("POST", "/svc/meta")).toBeUndefined();
    expect(faults.take("GET", "/svc/meta")?.id).toBe(b.id);
    expect(faults.take("GET", "/svc/meta")?.id).toBe(b.id);
    expect(faults.take("GET", "/svc/meta")).toBeUndefined();
  });
});

describe("speeds", () => {
  it("keep instant steps within 5 ms, fast within 50-150 ms and realistic in seconds", () => {
    for (let seq = 0; seq < 50; seq++) {
      expect(stepDelay("instant", seq)).toBeLessThanOrEqual(5);
      expect(stepDelay("fast", seq)).toBeGreaterThanOrEqual(50);
      expect(stepDelay("fast", seq)).toBeLessThanOrEqual(150);
      expect(stepDelay("realistic", seq)).toBeGreaterThanOrEqual(1000);
    }
  });
});
