import { describe, expect, it } from "vitest";
import { Deployment, Environment, type DeploymentInput } from "../../../src/api";
import { needAttributes } from "../../../src/client";
import {
  branchHeads,
  deploymentsInProgress,
  importedStackFile,
  liveDeployment,
  type ImportedStack,
  type NamedStack,
} from "../../../src/importer";
import { validateStackFile } from "../../../src/config";

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);

function deployment(
  id: number,
  fields: Partial<DeploymentInput["attributes"]> & { sha: string },
): ReturnType<typeof needAttributes<Deployment, "state">> {
  const d = Deployment.parse({
    type: "deployments",
    id: String(id),
    attributes: {
      id: String(id),
      date_created_unix: 1_700_000_000 + id,
      date_started_unix: 0,
      date_requested_unix: 0,
      date_approved_unix: 0,
      date_updated_unix: 0,
      title: `d${id}`,
      summary: "",
      deployment_type: "code-only",
      deployment_estimate: "120",
      short_sha: fields.sha.slice(0, 7),
      commit_subject: "",
      commit_message: "",
      commit_url: "",
      deployer: { id: 1, email: "ops@example.com", role: "Stack Manager", name: "Ops" },
      state: "Completed",
      is_current_build: false,
      ...fields,
    },
    links: { self: `https://api.example.com/deploys/${id}` },
  });
  return needAttributes(d, ["state"], "cannot tell the live deployment");
}

function environment(name: string, buildSha: string, buildPackage: string | null = null) {
  const e = Environment.parse({
    type: "environments",
    id: name,
    attributes: {
      name,
      url: "",
      framework_version: "5.2.0",
      build_sha: buildSha,
      build_package: buildPackage,
      maintenance_day: "",
      maintenance_time: "",
      maintenance_duration: "",
      maintenance_tz: "",
      usage: "UAT",
    },
    relationships: { stack: { data: { type: "stacks", id: "site", links: { self: "x" } } } },
  });
  return needAttributes(e, ["name"], "cannot name the environment");
}

const stackDoc: NamedStack = {
  type: "stacks",
  id: "site",
  attributes: { name: "site", title: "", created: "", created_unix: 0, repository_url: "" },
  relationships: { environments: { data: [] } },
  links: { self: "x" },
};

describe("the live deployment of an environment", () => {
  it("is the Completed deployment the platform marks as the current build", () => {
    const live = liveDeployment({
      environment: environment("uat", SHA_A),
      deployments: [deployment(1, { sha: SHA_A }), deployment(2, { sha: SHA_A, is_current_build: true })],
    });
    expect(live?.id).toBe("2");
  });

  it("is the newest Completed one with the environment's sha when list items carry no mark", () => {
    const live = liveDeployment({
      environment: environment("uat", SHA_A),
      deployments: [
        deployment(1, { sha: SHA_A }),
        deployment(2, { sha: SHA_A }),
        deployment(3, { sha: SHA_B }),
        deployment(4, { sha: SHA_A, state: "Failed" }),
      ],
    });
    expect(live?.id).toBe("2");
  });

  it("does not exist for an environment whose build no deployment made", () => {
    expect(
      liveDeployment({
        environment: environment("test", SHA_A),
        deployments: [deployment(1, { sha: SHA_B })],
      }),
    ).toBeUndefined();
  });

  it("is not a deployment still in progress, which is listed apart", () => {
    const env = {
      environment: environment("uat", SHA_A),
      deployments: [
        deployment(1, { sha: SHA_A, is_current_build: true }),
        deployment(2, { sha: SHA_B, state: "Deploying", is_current_build: true }),
      ],
    };
    expect(liveDeployment(env)?.id).toBe("1");
    expect(deploymentsInProgress(env).map((d) => d.id)).toEqual(["2"]);
  });
});

describe("an environment that runs a package", () => {
  it("is pinned by its package and adopted even when its deployment names no sha (not built from a commit)", () => {
    const stack: ImportedStack = {
      stack: stackDoc,
      snapshots: [],
      environments: [
        {
          environment: environment("prod", "", "theme@2.1.0"),
          deployments: [
            deployment(9, { sha: "", ref_type: "package", ref_name: "theme@2.1.0", is_current_build: true }),
          ],
        },
      ],
    };
    const file = importedStackFile(stack, { schemaPath: "./schema.json" });
    const { stack: parsed, errors } = validateStackFile("site.yaml", file.text);
    expect(errors).toEqual([]);
    expect(parsed?.environments["prod"]?.deployment).toMatchObject({
      ref_type: "package",
      ref: "theme@2.1.0",
      adopt: "9",
    });
  });
});

describe("a branch's head as the platform last resolved it", () => {
  it("is the sha of the newest deployment made from the branch on any environment", () => {
    const stack: ImportedStack = {
      stack: stackDoc,
      snapshots: [],
      environments: [
        {
          environment: environment("uat", SHA_B),
          deployments: [deployment(5, { sha: SHA_B, ref_type: "branch", ref_name: "main" })],
        },
        {
          environment: environment("prod", SHA_A),
          deployments: [
            deployment(3, { sha: SHA_A, ref_type: "branch", ref_name: "main" }),
            deployment(7, { sha: SHA_A, ref_type: "branch", ref_name: "hotfix", state: "Failed" }),
          ],
        },
      ],
    };
    const heads = branchHeads(stack);
    expect(heads.get("main")).toMatchObject({ sha: SHA_B, deployment: "5", environment: "uat" });
    // A failed deployment says nothing about what the branch is.
    expect(heads.has("hotfix")).toBe(false);
  });

  it("is tracked only on the environments that run it: the others stay pinned", () => {
    const stack: ImportedStack = {
      stack: stackDoc,
      snapshots: [],
      environments: [
        {
          environment: environment("uat", SHA_B),
          deployments: [
            deployment(5, { sha: SHA_B, ref_type: "branch", ref_name: "main", is_current_build: true }),
          ],
        },
        {
          environment: environment("prod", SHA_A),
          deployments: [
            deployment(3, { sha: SHA_A, ref_type: "branch", ref_name: "main", is_current_build: true }),
          ],
        },
      ],
    };
    const file = importedStackFile(stack, { schemaPath: "./schema.json", track: "main" });
    expect(file.environments).toEqual([
      { kind: "tracked", environment: "uat", deployment: "5" },
      { kind: "pinned", environment: "prod", deployment: "3" },
    ]);
    const { stack: parsed, errors } = validateStackFile("site.yaml", file.text);
    expect(errors).toEqual([]);
    expect(parsed?.environments["uat"]?.deployment).toMatchObject({
      ref_type: "branch",
      ref: "main",
      adopt: "5",
    });
    expect(parsed?.environments["prod"]?.deployment).toMatchObject({
      ref_type: "sha",
      ref: SHA_A,
      adopt: "3",
    });
    expect(file.text.split("\n")[0]).toBe("# yaml-language-server: $schema=./schema.json");
  });
});
