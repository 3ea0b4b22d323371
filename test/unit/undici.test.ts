/**
 * src/undici.ts loads undici's agents and `request` from the files that define them, not from
 * undici's index: these fail first when an upgrade of undici moves or renames one of them.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as undici from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { Agent, EnvHttpProxyAgent, ProxyAgent, request } from "../../src/undici";

const root = path.resolve(__dirname, "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-undici-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("undici's parts that src/undici.ts loads", () => {
  it("are the classes undici's index exports", () => {
    expect(Agent).toBe(undici.Agent);
    expect(ProxyAgent).toBe(undici.ProxyAgent);
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  });

  it("load without undici's index, and give every agent its request methods", () => {
    // A fresh process: this one has loaded the index (above).
    const entry = path.join(dir, "entry.ts");
    fs.writeFileSync(
      entry,
      [
        `const { Agent } = require(${JSON.stringify(path.join(root, "src", "undici.ts"))});`,
        "const index = Object.keys(require.cache).some((k) => /node_modules\\/undici\\/index\\.js$/.test(k));",
        "const agent = new Agent();",
        "process.stdout.write(JSON.stringify({ index, request: typeof agent.request, stream: typeof agent.stream }));",
      ].join("\n"),
    );
    const seen = execFileSync(process.execPath, [path.join(root, "test", "helpers", "run-ts.cjs"), entry], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(JSON.parse(seen)).toEqual({ index: false, request: "function", stream: "function" });
  });

  it("send a request to the URL's origin with its path and query, as undici's request does", async () => {
    const agent = new undici.MockAgent();
    agent.disableNetConnect();
    agent
      .get("https://sites.example.com")
      .intercept({ path: "/health?deep=1", method: "GET", headers: { accept: "*/*" } })
      .reply(200, "ok");
    const res = await request("https://sites.example.com/health?deep=1", {
      method: "GET",
      dispatcher: agent,
      headers: { accept: "*/*" },
    });
    expect([res.statusCode, await res.body.text()]).toEqual([200, "ok"]);
    await agent.close();
  });
});
