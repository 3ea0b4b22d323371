import { describe, expect, it } from "vitest";
import { markerFor, withMarker } from "../../../providers/behaviour/common";
import {
  currentBuildOf,
  isStackwrightsDeployment,
  liveBuildOf,
  stackwrightMarkerOf,
  type DeploymentState,
  type StatedDeployment,
} from "../../../src/api";

const A = "aaaaaaa1111111111111111111111111111111111".slice(0, 40);
const B = "bbbbbbb2222222222222222222222222222222222".slice(0, 40);
const MARKED = "Deploy main\n[stackwright sw-0123456789abcdef0123]";

function deployment(
  id: number,
  state: DeploymentState,
  sha: string,
  summary = MARKED,
  current = false,
): StatedDeployment {
  return {
    type: "deployments",
    id: String(id),
    attributes: {
      id: String(id),
      date_created_unix: 1_700_000_000 + id,
      date_started_unix: 1_700_000_000 + id,
      date_requested_unix: 1_700_000_000 + id,
      date_approved_unix: 0,
      date_updated_unix: 1_700_000_000 + id,
      title: `deployment ${id}`,
      summary,
      deployment_type: "full",
      deployment_estimate: "",
      sha,
      short_sha: sha.slice(0, 7),
      commit_subject: "",
      commit_message: "",
      commit_url: "",
      deployer: { id: 1, email: "ops@example.com", role: "Stack Manager", name: "Olivia Ops" },
      state,
      is_current_build: current,
    },
    links: { self: `https://example.com/${id}` },
  };
}

describe("the live build of an environment", () => {
  it("reads Stackwright's marker from the summary, and none from a deployment made by hand", () => {
    expect(stackwrightMarkerOf(deployment(1, "Completed", A))).toBe("sw-0123456789abcdef0123");
    expect(stackwrightMarkerOf(deployment(2, "Completed", A, "by hand"))).toBeUndefined();
  });

  it("reads the marker exactly as the Deployment provider writes it", () => {
    const marker = markerFor("proj/dev.acme-web/Deployment/uat", ["branch", "main"]);
    const d = deployment(1, "Completed", A, withMarker("Deploy main", marker));
    expect(stackwrightMarkerOf(d)).toBe(marker);
  });

  it("takes the deployment marked current, else the newest completed one", () => {
    const list = [deployment(1, "Completed", A), deployment(2, "Completed", B), deployment(3, "Failed", A)];
    expect(currentBuildOf(list)?.id).toBe("2");
    expect(currentBuildOf([...list.slice(0, 2), deployment(4, "Completed", A, MARKED, true)])?.id).toBe("4");
  });

  it("never takes a completed deployment without a sha (an unbuilt package) as the live build", () => {
    const unbuilt: StatedDeployment = {
      ...deployment(3, "Completed", A, MARKED, true),
      attributes: { ...deployment(3, "Completed", A, MARKED, true).attributes, sha: null },
    };
    const list = [deployment(1, "Completed", A), unbuilt];
    expect(currentBuildOf(list)?.id).toBe("1");
    const live = liveBuildOf("s/uat", A, list);
    expect(live.deployment?.id).toBe("1");
    expect(live.problems.map((p) => p.kind)).not.toContain("drifted");
  });

  it("has no problem when Stackwright deployed what runs and nothing newer is pending, running or failed", () => {
    const live = liveBuildOf("s/uat", B, [deployment(1, "Completed", A), deployment(2, "Completed", B)]);
    expect(live).toMatchObject({ sha: B, problems: [] });
    expect(live.deployment?.id).toBe("2");
  });

  it("names each reason not to take the live build as tested", () => {
    const kinds = (list: StatedDeployment[], sha = A) =>
      liveBuildOf("s/uat", sha, list).problems.map((p) => p.kind);
    expect(kinds([deployment(1, "Completed", A, "by hand")])).toEqual(["drifted"]);
    expect(kinds([deployment(1, "Completed", A)], B)).toEqual(["drifted"]);
    expect(kinds([deployment(1, "Completed", A), deployment(2, "Failed", B)])).toEqual(["failed"]);
    expect(kinds([deployment(1, "Completed", A), deployment(2, "Deploying", B)])).toEqual(["deploying"]);
    expect(kinds([deployment(1, "Completed", A), deployment(2, "Submitted", B)])).toEqual([
      "awaiting-approval",
    ]);
    // A failure or a request older than the current build is history, not a reason.
    expect(
      kinds([deployment(1, "Failed", B), deployment(2, "Submitted", B), deployment(3, "Completed", A)]),
    ).toEqual([]);
    expect(
      liveBuildOf("s/uat", A, [deployment(1, "Completed", A), deployment(2, "Failed", B)]).problems[0]?.text,
    ).toBe(
      's/uat\'s newest deployment failed (deployment 2 "deployment 2"), so its live build is not what was last tried',
    );
  });

  it("takes a deployment for Stackwright's when it carries the marker or the state records its id, and for made by hand otherwise", () => {
    const adopted = deployment(7, "Completed", A, "Imported by hand");
    expect(isStackwrightsDeployment(deployment(1, "Completed", A), [])).toBe(true);
    expect(isStackwrightsDeployment(adopted, [])).toBe(false);
    expect(isStackwrightsDeployment(adopted, [{ id: "7", sha: A }])).toBe(true);
    expect(
      isStackwrightsDeployment(adopted, [
        { id: "8", sha: A },
        { id: "70", sha: A },
      ]),
    ).toBe(false);
    // A package deployment recorded before it was built has no sha in the state yet.
    expect(isStackwrightsDeployment(adopted, [{ id: "7", sha: "" }])).toBe(true);
  });

  it("does not take a recorded id whose sha differs for Stackwright's (a state written against another platform)", () => {
    const adopted = deployment(7, "Completed", A, "Imported by hand");
    expect(isStackwrightsDeployment(adopted, [{ id: "7", sha: B }])).toBe(false);
  });

  it("promotes an adopted live build once the state records it, and still calls a later hand deployment drift", () => {
    const adopted = deployment(7, "Completed", A, "Imported by hand");
    expect(liveBuildOf("s/uat", A, [adopted]).problems.map((p) => p.text)).toEqual([
      's/uat\'s live build aaaaaaa (deployment 7 "deployment 7") was deployed by hand, not by Stackwright',
    ]);
    expect(liveBuildOf("s/uat", A, [adopted], [{ id: "7", sha: A }])).toMatchObject({ sha: A, problems: [] });
    // The same build deployed again by hand is another deployment: the record names the adopted one only.
    for (const sha of [B, A]) {
      const later = [adopted, deployment(8, "Completed", sha, "Hot fix by hand")];
      const live = liveBuildOf("s/uat", sha, later, [{ id: "7", sha: A }]);
      expect(live.deployment?.id).toBe("8");
      expect(live.problems.map((p) => p.kind)).toEqual(["drifted"]);
    }
  });
});
