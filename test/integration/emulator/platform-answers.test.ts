/**
 * The emulator's answers beyond the spec: the members the real platform adds (both answers), and
 * under `--answers platform` the shapes it sends (reduced list items, the real create response, a
 * numeric id in the single view).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeploymentDocument, DeploymentListDocument } from "../../../src/api";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { apiCaller, type ApiCaller } from "../../helpers/emulator-http";

const UAT = "/svc/project/acme-web/environment/uat";
const PROD = "/svc/project/acme-web/environment/prod";
const TAG_SHA = "3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f";

type Attributes = Record<string, unknown>;
interface Resource {
  id: unknown;
  attributes: Attributes;
  links?: unknown;
}

function dataOf(body: unknown): Resource {
  return (body as { data: Resource }).data;
}

describe.each(["documented", "platform"] as const)("the emulator's %s answers", (answers) => {
  let emulator: TestEmulator;
  let call: ApiCaller;

  beforeAll(async () => {
    emulator = await startTestEmulator({ answers });
    call = apiCaller(emulator.url);
  });
  afterAll(async () => emulator?.close());

  it("name a tag deployment's ref, its tags, who bypassed approval, and the platform's decision", async () => {
    const res = await call("POST", `${UAT}/deploys`, {
      body: { ref_type: "tag", ref: "v1.4.0", bypass_and_start: true, title: "Deploy v1.4.0" },
    });
    expect(res.status).toBe(201);
    const a = dataOf(res.body).attributes;
    expect(a).toMatchObject({
      ref_type: "tag",
      ref_name: "v1.4.0",
      tags: ["v1.4.0"],
      sha: TAG_SHA,
      decision: "bypassed",
      messages: [],
      package_link: null,
      locked_by: null,
      dirty: false,
    });
    expect((a["bypasser"] as { email: string }).email).toBe("ops@example.com");
    expect(a["approver"]).toBeNull();
  });

  it("name the person who approved a requested deployment", async () => {
    const created = dataOf(
      (await call("POST", `${PROD}/deploys`, { body: { ref_type: "promote_from_uat" } })).body,
    );
    await emulator.hooks.approve("acme-web", "prod", String(created.id));
    const viewed = dataOf((await call("GET", `${PROD}/deploys/${String(created.id)}`)).body);
    expect((viewed.attributes["approver"] as { email: string }).email).toBe("ops@example.com");
    expect(viewed.attributes["bypasser"]).toBeNull();
    expect(viewed.attributes["ref_name"]).toBeNull();
  });

  if (answers === "documented") {
    it("keep the documented shapes", async () => {
      const list = await call("GET", `${UAT}/deploys`);
      expect(DeploymentListDocument.safeParse(list.body).success).toBe(true);
      const first = (list.body as { data: Resource[] }).data[0];
      const single = await call("GET", `${UAT}/deploys/${String(first?.id)}`);
      expect(DeploymentDocument.safeParse(single.body).success).toBe(true);
      expect(typeof dataOf(single.body).id).toBe("string");
    });
  } else {
    it("list reduced items, answer creates without deployer or links, and view with a numeric id", async () => {
      const created = await call("POST", `${UAT}/deploys`, {
        body: { ref_type: "branch", ref: "main", bypass: true },
      });
      const c = dataOf(created.body);
      expect(c.links).toBeUndefined();
      expect(c.attributes).not.toHaveProperty("deployer");
      expect(c.attributes).not.toHaveProperty("commit_url");
      const list = (await call("GET", `${UAT}/deploys`)).body as { data: Resource[] };
      const item = list.data.find((d) => d.id === c.id);
      expect(item?.links).toBeUndefined();
      for (const key of [
        "date_created_unix",
        "date_started_unix",
        "deployer",
        "commit_url",
        "is_current_build",
      ]) {
        expect(item?.attributes).not.toHaveProperty(key);
      }
      expect(item?.attributes["summary"]).toBeNull();
      expect(DeploymentListDocument.safeParse(list).success).toBe(false);
      const single = dataOf((await call("GET", `${UAT}/deploys/${String(c.id)}`)).body);
      expect(single.id).toBe(Number(c.id));
      expect(single.attributes["deployer"]).toBeDefined();
    });
  }
});
