import { describe, expect, it } from "vitest";
import { factOf, kindsLine, sameReads, tally } from "../../../bench/observe-tally";

const env = (stack: string, name: string) => `/svc/project/${stack}/environment/${name}`;

describe("the observe bench's request tally", () => {
  it("files each read under the fact it asks for: the run's own, or one environment's", () => {
    expect(factOf("/svc/meta")).toEqual({ kind: "meta", environment: null });
    expect(factOf("/svc/projects")).toEqual({ kind: "stacks", environment: null });
    expect(factOf(env("site-000", "dev"))).toEqual({ kind: "environment", environment: "site-000/dev" });
    expect(factOf(`${env("site-000", "dev")}/deploys?page%5Bsize%5D=100`)).toEqual({
      kind: "deployments",
      environment: "site-000/dev",
    });
    expect(factOf(`${env("site-000", "dev")}/deploys/7/log`)).toEqual({
      kind: "deployment log",
      environment: "site-000/dev",
    });
  });

  it("counts a clean observation as reads only, each made once, two per environment", () => {
    const log = [
      { method: "GET", path: "/svc/meta" },
      { method: "GET", path: "/svc/projects" },
      ...["dev", "uat", "prod"].flatMap((e) => [
        { method: "GET", path: env("site-000", e) },
        { method: "GET", path: `${env("site-000", e)}/deploys` },
      ]),
      { method: "DELETE", path: "/_emulator/requests" },
    ];
    const t = tally(log);
    expect(t).toMatchObject({
      total: 8,
      writes: 0,
      reads: 8,
      distinct: 8,
      duplicates: [],
      environments: 3,
      maxReadsPerEnvironment: 2,
    });
    expect(kindsLine(t)).toBe("3 deployments, 3 environment, 1 meta, 1 stacks");
  });

  it("reports a write and a read made twice, naming the read", () => {
    const t = tally([
      { method: "GET", path: env("a", "dev") },
      { method: "GET", path: env("a", "dev") },
      { method: "POST", path: `${env("a", "dev")}/deploys` },
    ]);
    expect(t.writes).toBe(1);
    expect(t.reads).toBe(2);
    expect(t.distinct).toBe(1);
    expect(t.duplicates).toEqual([{ request: `GET ${env("a", "dev")}`, times: 2 }]);
    expect(t.maxReadsPerEnvironment).toBe(2);
  });

  it("tells whether two runs made the same reads of each kind", () => {
    const a = tally([
      { method: "GET", path: env("a", "dev") },
      { method: "GET", path: "/svc/meta" },
    ]);
    const b = tally([
      { method: "GET", path: "/svc/meta" },
      { method: "GET", path: env("b", "uat") },
    ]);
    const c = tally([{ method: "GET", path: "/svc/meta" }]);
    expect(sameReads(a, b)).toBe(true);
    expect(sameReads(a, c)).toBe(false);
  });
});
