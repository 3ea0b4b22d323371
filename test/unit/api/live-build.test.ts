import { describe, expect, it } from "vitest";
import { markerFor, withMarker } from "../../../providers/provider-process/common";
import {
  currentBuildOf,
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
});
