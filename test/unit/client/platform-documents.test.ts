import { describe, expect, it } from "vitest";
import {
  DeploymentListDocument,
  DeploymentReadDocument,
  DeploymentReadListDocument,
  type Environment,
} from "../../../src/api";
import { UnexpectedResponseError, needAttributes } from "../../../src/client";
import { dataOf, pageOf, type ResponseContext } from "../../../src/client/decode";
import { liveDeploymentFact } from "../../../src/config/facts";
import {
  ENVIRONMENT_DEPLOYMENTS,
  PACKAGE_CREATE_RESPONSE,
  SINGLE_DEPLOYMENT,
} from "../../fixtures/platform-answers/documents";

const LIST: ResponseContext = {
  method: "GET",
  path: "/svc/project/acme-web/environment/prod/deploys",
  status: 200,
  requestId: undefined,
};
const CREATE: ResponseContext = { ...LIST, method: "POST", status: 201 };
const VIEW: ResponseContext = { ...LIST, path: `${LIST.path}/1187` };

function environmentRunning(sha: string | null): Environment {
  return {
    type: "environments",
    id: "prod",
    attributes: { name: "prod", build_sha: sha, build_package: null },
  };
}

describe("documents as the real platform sends them", () => {
  it("reads a package deployment's create response with a null sha, no deployer and no links", () => {
    const d = dataOf(DeploymentReadDocument)(PACKAGE_CREATE_RESPONSE, CREATE);
    expect(d.id).toBe("4711");
    expect(d.attributes.state).toBe("Queued");
    expect(d.attributes.sha).toBeNull();
    expect(d.attributes.commit_subject).toBeNull();
    expect(d.attributes.deployer).toBeUndefined();
    expect(d.links).toBeUndefined();
    expect(d.attributes.ref_type).toBe("package");
    expect(d.attributes.package_link).toBe("https://packages.example.com/acme-web/build-2026-11-25.tar.gz");
    expect(d.attributes.package_id).toBe(981);
    expect(d.attributes.messages?.[0]?.text).toBe("The package is built before it is deployed");
  });

  it("reads an environment's reduced list items with their refs and tags", () => {
    const page = pageOf(DeploymentReadListDocument)(ENVIRONMENT_DEPLOYMENTS, LIST);
    expect(page.items.map((d) => [d.id, d.attributes.ref_type, d.attributes.ref_name])).toEqual([
      ["1202", "branch", "release/4.12.0"],
      ["1187", "tag", "4.11.0"],
    ]);
    expect(page.items[1]?.attributes.tags).toEqual(["4.11.0"]);
    expect(page.items[0]?.attributes.summary).toBeNull();
    expect(page.items[0]?.attributes.date_created_unix).toBeUndefined();
    expect(page.items[0]?.links).toBeUndefined();
  });

  it("reads a single view with a numeric id, its approver and no bypasser", () => {
    const d = dataOf(DeploymentReadDocument)(SINGLE_DEPLOYMENT, VIEW);
    expect(d.id).toBe("1187");
    expect(d.attributes.approver?.email).toBe("ops@example.com");
    expect(d.attributes.bypasser).toBeNull();
    expect(d.attributes.changes?.["Code version"]).toEqual({ from: "1111111", to: "3c4d5e6" });
  });

  it("would have been refused by the documented shapes, which the emulator keeps writing", () => {
    expect(DeploymentListDocument.safeParse(ENVIRONMENT_DEPLOYMENTS).success).toBe(false);
  });

  it("names the endpoint, the field and what came when a needed value is missing", () => {
    const d = dataOf(DeploymentReadDocument)(PACKAGE_CREATE_RESPONSE, CREATE);
    let thrown: unknown;
    try {
      needAttributes(d, ["sha"], "cannot tell which build runs on acme-web/prod");
    } catch (error) {
      thrown = error;
    }
    expect(UnexpectedResponseError.isInstance(thrown)).toBe(true);
    const error = thrown as UnexpectedResponseError;
    expect(error.message).toBe(
      "POST /svc/project/acme-web/environment/prod/deploys answered deployments 4711 without attributes.sha " +
        "(received null): cannot tell which build runs on acme-web/prod",
    );
    expect(error.jsonPath).toBe("$.data.attributes.sha");
    expect(error.method).toBe("POST");
  });

  it("names the list item a needed value is missing from", () => {
    const body = structuredClone(ENVIRONMENT_DEPLOYMENTS);
    const second = body.data[1];
    if (second === undefined) throw new Error("fixture has two items");
    delete (second.attributes as Partial<typeof second.attributes>).state;
    const items = pageOf(DeploymentReadListDocument)(body, LIST).items;
    const item = items[1];
    if (item === undefined) throw new Error("two items decoded");
    expect(() => needAttributes(item, ["state"], "cannot claim it")).toThrow(
      "GET /svc/project/acme-web/environment/prod/deploys answered deployments 1187 without attributes.state (received nothing): cannot claim it",
    );
  });

  it("shows the ref of a hand-made deployment in the live build fact", () => {
    const items = pageOf(DeploymentReadListDocument)(ENVIRONMENT_DEPLOYMENTS, LIST).items;
    const fact = liveDeploymentFact(environmentRunning("3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f"), items);
    expect(fact).toEqual({
      sha: "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f",
      ref: "tag 4.11.0",
      title: "Release 4.11.0",
      deployer: null,
      deployed_at: null,
    });
  });

  it("never takes a deployment without a sha for the live build", () => {
    const d = dataOf(DeploymentReadDocument)(
      {
        data: {
          ...PACKAGE_CREATE_RESPONSE.data,
          attributes: { ...PACKAGE_CREATE_RESPONSE.data.attributes, state: "Completed" },
        },
      },
      CREATE,
    );
    expect(liveDeploymentFact(environmentRunning(null), [d])).toMatchObject({
      sha: null,
      ref: null,
      title: null,
    });
  });
});
