import { describe, expect, it } from "vitest";
import { diff as diffDeployment } from "../../../providers/behaviour/deployment";
import { driftWarning } from "../../../providers/program-process/drift";
import {
  diff as diffEnvironmentLock,
  create as createLock,
  remove as removeLock,
  update as updateLock,
} from "../../../providers/behaviour/environment-lock";

const where = { stack: "acme-web", environment: "prod" };

describe("an environment lock kept by the program", () => {
  it("plans an in-place update, not a delete, when the desired state drops the lock", async () => {
    const olds = { ...where, message: "freeze", locked: true, lock_message: "freeze" };
    const news = { ...where, message: "", locked: false };
    expect(await diffEnvironmentLock("acme-web:prod", olds, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("plans nothing for an unlocked environment whose message changes", async () => {
    const olds = { ...where, message: "", locked: false, lock_message: "" };
    const news = { ...where, message: "later", locked: false };
    expect((await diffEnvironmentLock("acme-web:prod", olds, news)).changes).toBe(false);
  });

  it("locks in place when the desired state adds the lock back", async () => {
    const olds = { ...where, message: "", locked: false, lock_message: "" };
    const news = { ...where, message: "freeze", locked: true };
    expect(await diffEnvironmentLock("acme-web:prod", olds, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("creates an unlocked one without calling the API (no credentials are even needed)", async () => {
    const created = await createLock({ ...where, message: "", locked: false });
    expect(created).toEqual({
      id: "acme-web:prod",
      outs: { ...where, message: "", locked: false, lock_message: "" },
    });
  });

  it("deletes an unlocked one without calling the API, leaving a lock set by hand alone", async () => {
    await expect(
      removeLock("acme-web:prod", { ...where, locked: false, lock_message: "" }),
    ).resolves.toBeUndefined();
  });
});

describe("a deployment on a locked environment", () => {
  const base = {
    ...where,
    ref_type: "promote_from_uat",
    marker_seed: "seed",
    marker: "m",
    state: "Submitted",
  };

  it("fails the plan, naming the lock, when it would change while the lock stays", async () => {
    const olds = { ...base, trigger: "1", environment_lock: "Change freeze" };
    const news = { ...base, trigger: "2", environment_lock: "Change freeze" };
    await expect(diffDeployment("102", olds, news)).rejects.toThrow(
      'acme-web/prod is locked ("Change freeze") and stays locked in this change, so its deployment cannot change (changed: trigger)',
    );
  });

  it("may change in the same change that removes the lock (unlock, then deploy)", async () => {
    const olds = { ...base, trigger: "1", environment_lock: "Change freeze" };
    const news = { ...base, trigger: "2" };
    expect(await diffDeployment("102", olds, news)).toMatchObject({ changes: true, replaces: ["trigger"] });
  });

  it("may change in the change that adds the lock (deploy, then lock)", async () => {
    const olds = { ...base, trigger: "1" };
    const news = { ...base, trigger: "2", environment_lock: "Change freeze" };
    expect(await diffDeployment("102", olds, news)).toMatchObject({ changes: true, replaces: ["trigger"] });
  });

  // Found by the provider fault fuzz (test/fuzz/provider-faults.test.ts): a change that deploys
  // and locks, whose deployment outlived its wait bound, failed every later run on the lock.
  it("waits for a deployment still running after a timeout while the lock stays", async () => {
    const olds = { ...base, trigger: "1", state: "Deploying", environment_lock: "Change freeze" };
    const news = { ...base, trigger: "1", environment_lock: "Change freeze" };
    expect(await diffDeployment("102", olds, news)).toMatchObject({ changes: true, replaces: [] });
  });

  it("fails the plan when an Approved deployment would be started while the lock stays", async () => {
    const olds = { ...base, trigger: "1", state: "Approved", environment_lock: "Change freeze" };
    const news = { ...base, trigger: "1", environment_lock: "Change freeze" };
    await expect(diffDeployment("102", olds, news)).rejects.toThrow("it would be started");
  });

  it("records a lock added while it stays unchanged, so the next run knows", async () => {
    const olds = { ...base, trigger: "1" };
    const news = { ...base, trigger: "1", environment_lock: "Change freeze" };
    expect(await diffDeployment("102", olds, news)).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("a hand deployment on an environment under a change freeze", () => {
  const drifted = {
    ...where,
    ref_type: "branch",
    ref: "main",
    marker_seed: "seed",
    marker: "m",
    self_heal: true,
    environment_lock: "Change freeze",
  };
  const olds = { ...drifted, state: "Completed", sha: "a".repeat(40), observed_sha: "a".repeat(40) };

  it("is not healed while the lock stays, so unrelated changes still preview", async () => {
    const news = { ...drifted, observed_sha: "b".repeat(40) };
    expect(await diffDeployment("103", olds, news)).toMatchObject({ changes: false, replaces: [] });
  });

  it("is healed in the change that lifts the lock", async () => {
    const { environment_lock: _lifted, ...news } = { ...drifted, observed_sha: "b".repeat(40) };
    expect(await diffDeployment("103", olds, news)).toMatchObject({
      changes: true,
      replaces: ["observed_sha"],
    });
  });

  it("is reported with the lock that holds the self-heal back", () => {
    expect(driftWarning("acme-web", "prod", "a".repeat(40), "b".repeat(40), "Change freeze")).toContain(
      'The environment is locked ("Change freeze"): self_heal redeploys once the lock is lifted.',
    );
  });
});

describe("snapshots and restores on an environment whose lock stays", () => {
  const locked = { ...where, message: "freeze", locked: true, lock_message: "freeze" };

  it("fail the preview, naming the lock and the new work", async () => {
    const olds = { ...locked, holds: ["snapshot nightly@aaaa1111"] };
    const news = {
      ...where,
      message: "freeze",
      locked: true,
      holds: ["restore back@bbbb2222", "snapshot nightly@aaaa1111"],
    };
    await expect(diffEnvironmentLock("acme-web:prod", olds, news)).rejects.toThrow(
      'acme-web/prod is locked ("freeze") and stays locked in this change, so the platform would refuse restore back.',
    );
  });

  it("are recorded in place when the lock arrives in the same change (the work goes first)", async () => {
    const olds = { ...where, message: "", locked: false, lock_message: "", holds: [] };
    const news = { ...where, message: "freeze", locked: true, holds: ["snapshot nightly@aaaa1111"] };
    expect(await diffEnvironmentLock("acme-web:prod", olds, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("are recorded without judgement for a state written before holds existed", async () => {
    const news = { ...where, message: "freeze", locked: true, holds: ["snapshot nightly@aaaa1111"] };
    expect(await diffEnvironmentLock("acme-web:prod", locked, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("are recorded by an update that makes no request (no credentials needed)", async () => {
    const olds = { ...locked, holds: ["snapshot nightly@aaaa1111"] };
    const news = { ...where, message: "freeze", locked: true, holds: [] };
    expect(await updateLock("acme-web:prod", olds, news)).toEqual({ outs: { ...locked, holds: [] } });
  });
});
