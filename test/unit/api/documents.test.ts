import { describe, expect, it } from "vitest";
import { DeploymentDocument, DeploymentLogDocument, TransferLog } from "../../../src/api";

/** A deployment as the real platform sends it: more fields than the spec shows (fact 7). */
const platformDeployment = {
  type: "deployments",
  id: "42",
  attributes: {
    id: 42,
    date_created_unix: 1,
    date_started_unix: 2,
    date_requested_unix: 3,
    date_approved_unix: 4,
    date_updated_unix: 5,
    title: "Deploy main",
    summary: "",
    deployment_type: "full",
    deployment_estimate: "120",
    sha: "a".repeat(40),
    short_sha: "aaaaaaa",
    commit_subject: "s",
    commit_message: "m",
    commit_url: "https://git.example/c",
    deployer: { id: 7, email: "ops@example.com", role: "Owner", name: "Ops" },
    state: "Completed",
    is_current_build: true,
    ref_type: "branch",
    ref_name: "main",
    tags: ["release", { name: "v1" }],
    rejected_reason: null,
    package_id: 12,
    package_name: "pkg-12",
    package_url: "https://pkg.example/12",
    is_full_deployment: true,
  },
  links: { self: "https://api.example/svc/project/acme/environment/uat/deploys/42" },
};

describe("documents with the fields the platform adds", () => {
  it("parses a deployment with ref_type, ref_name, tags, rejected_reason, package_* and is_full_deployment", () => {
    const parsed = DeploymentDocument.parse({ data: platformDeployment });
    expect(parsed.data.attributes.id).toBe("42");
    expect(parsed.data.attributes.deployment_estimate).toBe("120");
    expect(parsed.data.attributes.state).toBe("Completed");
  });

  it("parses a deployment log: the document plus its lines in message", () => {
    const parsed = DeploymentLogDocument.parse({
      data: platformDeployment,
      message: ["queued", "deploying"],
    });
    expect(parsed.message).toEqual(["queued", "deploying"]);
    expect(parsed.data.id).toBe("42");
  });

  it("parses a transfer log in each of the platform's words and refuses another", () => {
    for (const status of ["Queued", "Running", "Complete", "Failed"]) {
      expect(TransferLog.parse({ status, content: "line\n" }).status).toBe(status);
    }
    expect(TransferLog.safeParse({ status: "Finished", content: "" }).success).toBe(false);
  });
});
