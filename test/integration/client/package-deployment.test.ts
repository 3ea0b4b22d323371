/**
 * A package deployment from create to Completed, as the platform runs one: no commit (a null sha)
 * until the package is built, the platform's notes on create, the package's link and id. Runs in
 * both vitest projects, so against the documented and the platform-shaped answers.
 */
import { describe, expect, it } from "vitest";
import { needAttributes, UnexpectedResponseError } from "../../../src/client";
import { STACK, useClientWorld } from "../../helpers/client";

const world = useClientWorld();
const PACKAGE = "build-2026-11-25@4.12.0";

describe("a package deployment", () => {
  it("has no sha until its package is built, then completes with one", async () => {
    const created = await world.client.deployments.create(STACK, "uat", {
      ref_type: "package",
      ref: PACKAGE,
      bypass: true,
      title: "Deploy the weekly package",
    });
    expect(created.attributes.state).toBe("Approved");
    expect(created.attributes.sha).toBeNull();
    expect(created.attributes.commit_subject).toBeNull();
    expect(created.attributes.ref_type).toBe("package");
    expect(created.attributes.ref_name).toBeNull();
    expect(String(created.attributes.package_id)).toBe(created.id);
    expect(created.attributes.package_link).toMatch(/\/packages\/build-2026-11-25%404\.12\.0$/);
    expect(created.attributes.messages?.map((m) => m.code)).toEqual(["package_build"]);

    // A consumer that needs the sha is told which endpoint left it out, not handed a wrong one.
    const read = await world.client.deployments.get(STACK, "uat", created.id);
    expect(read.attributes.sha).toBeNull();
    expect(() => needAttributes(read, ["sha"], "cannot judge drift")).toThrow(UnexpectedResponseError);
    const listed = (await world.client.deployments.list(STACK, "uat")).find((d) => d.id === created.id);
    expect(listed?.attributes.sha).toBeNull();

    const started = await world.client.deployments.start(STACK, "uat", created.id);
    const seen: (string | null | undefined)[] = [started.attributes.sha];
    const done = await world.client.waitForDeployment(STACK, "uat", created.id);
    seen.push(done.attributes.sha);
    expect(done.attributes.state).toBe("Completed");
    expect(done.attributes.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(seen[0]).toBeNull();

    const environment = await world.client.environments.get(STACK, "uat");
    expect(environment.attributes.build_sha).toBe(done.attributes.sha);
    expect(environment.attributes.build_package).toBe(PACKAGE);
    const log = await world.client.deployments.log(STACK, "uat", created.id);
    expect(log.lines).toContain(`Building package ${PACKAGE}: ${done.attributes.sha ?? ""}`);
  });
});
