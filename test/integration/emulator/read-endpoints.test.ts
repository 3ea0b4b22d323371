import { describe, expect, it } from "vitest";
import {
  ApiErrorDocument,
  ConfigurationListDocument,
  DeploymentDocument,
  DeploymentListDocument,
  DomainListDocument,
  EnvironmentDocument,
  ManifestReleaseListDocument,
  DocumentedMetaDocument,
  ModuleListDocument,
  SnapshotDocument,
  SnapshotListDocument,
  StackDocument,
  StackListDocument,
  TeamMemberListDocument,
  WhitelistDocument,
} from "../../../src/api";
import { TEST_USERS } from "../../helpers/emulator";
import { errorTitle, useTestEmulator } from "../../helpers/emulator-http";

const emu = useTestEmulator();
const { call } = emu;

const ENV = "/svc/project/acme-web/environment/uat";

describe("read endpoints", () => {
  it("answers /svc/meta with the caller's login and the server time", async () => {
    const res = await call("GET", "/svc/meta");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/vnd.api+json");
    const doc = DocumentedMetaDocument.parse(res.body);
    expect(doc.meta.whoami).toBe("ops@example.com");
    expect(doc.meta.now).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it("lists only the stacks the caller is a member of, with absolute links", async () => {
    const ops = StackListDocument.parse((await call("GET", "/svc/projects")).body);
    expect(ops.data.map((s) => s.id)).toEqual(["acme-web"]);
    const stack = ops.data[0];
    expect(stack?.links.self).toBe(`${emu.url}/svc/project/acme-web`);
    expect(stack?.relationships.environments.data.map((e) => e.id)).toEqual(["uat", "prod"]);
    expect(stack?.relationships.environments.data[0]?.links?.self).toBe(`${emu.url}${ENV}`);
    const release = StackListDocument.parse(
      (await call("GET", "/svc/projects", { as: TEST_USERS.releaseManager })).body,
    );
    expect(release.data.map((s) => s.id)).toEqual(["acme-web", "acme-intranet"]);
    const outsider = StackListDocument.parse(
      (await call("GET", "/svc/projects", { as: TEST_USERS.outsider })).body,
    );
    expect(outsider.data).toEqual([]);
  });

  it("views one stack, whose id arrives as a number", async () => {
    const res = await call("GET", "/svc/project/acme-web");
    expect((res.body as { data: { id: unknown } }).data.id).toBe(1);
    const doc = StackDocument.parse(res.body);
    expect(doc.data.id).toBe("1");
    expect(doc.data.attributes).toMatchObject({ name: "acme-web", created_unix: 1735689600 });
    expect(doc.data.attributes.created).toBe("2025-01-01 13:00:00");
  });

  it("hides stacks the caller is not a member of behind the same 404 as unknown ones", async () => {
    const hidden = await call("GET", "/svc/project/acme-intranet");
    const unknown = await call("GET", "/svc/project/nope");
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(errorTitle(hidden)).toBe("Stack 'acme-intranet' not found");
    expect(errorTitle(unknown)).toBe("Stack 'nope' not found");
    const env = await call("GET", "/svc/project/acme-intranet/environment/prod");
    expect(env.status).toBe(404);
    expect(errorTitle(env)).toBe("Stack 'acme-intranet' not found");
  });

  it("views an environment", async () => {
    const doc = EnvironmentDocument.parse((await call("GET", ENV)).body);
    expect(doc.data.attributes).toMatchObject({
      name: "uat",
      usage: "UAT",
      build_sha: "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a",
      build_package: null,
      maintenance_tz: "Pacific/Auckland",
    });
    expect(doc.data.relationships.stack.data.id).toBe("acme-web");
    const missing = await call("GET", "/svc/project/acme-web/environment/nope");
    expect(missing.status).toBe(404);
    expect(errorTitle(missing)).toBe("Environment 'nope' not found in stack 'acme-web'");
  });

  it("lists modules with meta, and filters them by name in every query form", async () => {
    const all = ModuleListDocument.parse((await call("GET", `${ENV}/modules`)).body);
    expect(all.data.map((m) => m.id)).toEqual(["silverstripe/framework", "silverstripe/cms"]);
    expect(all.meta.status_code).toBe(200);
    expect(all.meta.server_time).toMatch(/^\d+$/);
    for (const query of [
      "filters=silverstripe/cms",
      "filters[]=silverstripe/cms",
      "filters[0]=silverstripe/cms",
    ]) {
      const one = ModuleListDocument.parse((await call("GET", `${ENV}/modules?${query}`)).body);
      expect(one.data.map((m) => m.attributes.name)).toEqual(["silverstripe/cms"]);
    }
    const two = ModuleListDocument.parse(
      (await call("GET", `${ENV}/modules?filters=silverstripe/cms&filters=silverstripe/framework`)).body,
    );
    expect(two.data).toHaveLength(2);
    const none = ModuleListDocument.parse((await call("GET", `${ENV}/modules?filters=unknown/thing`)).body);
    expect(none.data).toEqual([]);
    const bad = await call("GET", `${ENV}/modules?filter=x`);
    expect(bad.status).toBe(400);
    expect(errorTitle(bad)).toContain("'filter'");
  });

  it("lists team members with roles", async () => {
    const doc = TeamMemberListDocument.parse((await call("GET", "/svc/project/acme-web/team")).body);
    expect(doc.data.map((m) => [m.attributes.email, m.attributes.role])).toEqual([
      ["ops@example.com", "Stack Manager"],
      ["release@example.com", "Release Manager"],
      ["deployer@example.com", "Deployer"],
      ["dev@example.com", "Team Member"],
    ]);
  });

  it("lists domains, configuration, whitelist and manifest releases", async () => {
    const domains = DomainListDocument.parse(
      (await call("GET", "/svc/project/acme-web/environment/prod/domains")).body,
    );
    expect(domains.data.map((d) => [d.id, d.attributes.primary])).toEqual([
      ["www.acme.example.com", true],
      ["acme.example.com", false],
    ]);
    const config = ConfigurationListDocument.parse((await call("GET", `${ENV}/configuration`)).body);
    expect(config.data[0]?.attributes.configuration).toEqual({ APP_ENV: "uat", SS_LOG_LEVEL: "debug" });
    expect(config.data[0]?.id).toMatch(/^[0-9a-f]{32}$/);
    const whitelist = WhitelistDocument.parse((await call("GET", `${ENV}/whitelist`)).body);
    expect(whitelist.data.attributes.items).toEqual({ "203.0.113.10": "office", "198.51.100.7": "vpn" });
    expect(whitelist.data.links.self).toBe(`${emu.url}${ENV}/whitelist`);
    expect(whitelist.meta.status_code).toBe(200);
    const releases = ManifestReleaseListDocument.parse((await call("GET", "/svc/manifestreleases")).body);
    expect(releases.data.map((r) => r.attributes.sha)).toEqual(["2026.11.1", "2026.11.2"]);
  });

  it("lists snapshots in the list form and views one in the full form", async () => {
    const list = await call("GET", "/svc/project/acme-web/snapshots");
    const doc = SnapshotListDocument.parse(list.body);
    expect(doc.data.map((s) => s.id)).toEqual(["12", "11", "10"]);
    const raw = (list.body as { data: { id: unknown; attributes: Record<string, unknown> }[] }).data[0];
    expect(typeof raw?.id).toBe("number");
    expect(raw?.attributes).not.toHaveProperty("is_backup");
    const one = SnapshotDocument.parse((await call("GET", "/svc/project/acme-web/snapshots/11")).body);
    expect(one.data.attributes).toMatchObject({
      mode: "db",
      snapshot_status: "complete",
      can_download: "true",
      is_backup: false,
      notes: "Before release 1.4.0",
    });
    expect(one.data.relationships.source.data[0]?.id).toBe("prod");
    expect(one.data.links.download_link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });
});

describe("protocol", () => {
  it("answers 401 with WWW-Authenticate for missing or wrong credentials", async () => {
    for (const as of [
      null,
      { email: "ops@example.com", token: "wrong" },
      { email: "nobody@example.com", token: "x" },
    ]) {
      const res = await call("GET", "/svc/meta", { as });
      expect(res.status).toBe(401);
      expect(String(res.headers["www-authenticate"])).toMatch(/^Basic/);
      expect(ApiErrorDocument.parse(res.body).errors[0]?.status).toBe("401");
    }
  });

  it("treats a missing X-Api-Version as 2.0, gives 1.0 numeric error statuses and refuses other versions", async () => {
    const v2 = await call("GET", "/svc/project/nope");
    expect((v2.body as { errors: { status: unknown }[] }).errors[0]?.status).toBe("404");
    const v1 = await call("GET", "/svc/project/nope", { headers: { "x-api-version": "1.0" } });
    expect((v1.body as { errors: { status: unknown }[] }).errors[0]?.status).toBe(404);
    const v3 = await call("GET", "/svc/meta", { headers: { "x-api-version": "3.0" } });
    expect(v3.status).toBe(400);
    expect(errorTitle(v3)).toBe("Unsupported X-Api-Version '3.0' (supported: 1.0, 2.0)");
  });

  it("answers every read endpoint in both versions with documents the shared schemas accept", async () => {
    const reads: [string, { parse(v: unknown): unknown }][] = [
      ["/svc/meta", DocumentedMetaDocument],
      ["/svc/projects", StackListDocument],
      ["/svc/project/acme-web", StackDocument],
      [ENV, EnvironmentDocument],
      [`${ENV}/modules`, ModuleListDocument],
      [`${ENV}/deploys`, DeploymentListDocument],
      [`${ENV}/deploys/100`, DeploymentDocument],
      ["/svc/project/acme-web/snapshots", SnapshotListDocument],
      ["/svc/project/acme-web/snapshots/10", SnapshotDocument],
      ["/svc/project/acme-web/team", TeamMemberListDocument],
      [`${ENV}/domains`, DomainListDocument],
      [`${ENV}/configuration`, ConfigurationListDocument],
      ["/svc/manifestreleases", ManifestReleaseListDocument],
      [`${ENV}/whitelist`, WhitelistDocument],
    ];
    for (const version of ["1.0", "2.0"]) {
      for (const [path, schema] of reads) {
        const res = await call("GET", path, { headers: { "x-api-version": version } });
        expect(res.status, `${version} ${path}`).toBe(200);
        expect(res.headers["content-type"]).toBe("application/vnd.api+json");
        expect(() => schema.parse(res.body), `${version} ${path}`).not.toThrow();
      }
    }
  });

  it("answers unknown routes loudly, and ignores query parameters where an endpoint has no filters", async () => {
    const route = await call("GET", "/svc/nothing-here");
    expect(route.status).toBe(404);
    expect(errorTitle(route)).toBe("No endpoint GET /svc/nothing-here");
    expect((await call("GET", "/svc/projects?page=2")).status).toBe(200);
  });

  it("refuses a non-numeric id in the path, naming the parameter", async () => {
    const res = await call("GET", "/svc/project/acme-web/snapshots/abc");
    expect(res.status).toBe(400);
    expect(errorTitle(res)).toBe("Invalid path parameter 'snapshot_id': 'abc' is not a number");
  });
});
