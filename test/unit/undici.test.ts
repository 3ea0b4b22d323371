/**
 * src/undici.ts loads undici's agents and `request` from the files that define them, not from
 * undici's index, and only when the first agent is made: these fail first when an upgrade of
 * undici moves or renames one of them.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as undici from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { newAgent, newEnvHttpProxyAgent, newProxyAgent, request } from "../../src/undici";

const root = path.resolve(__dirname, "..", "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-undici-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("undici's parts that src/undici.ts loads", () => {
  it("make the agents undici's index exports", async () => {
    const made = [
      newAgent(),
      newProxyAgent({ uri: "http://127.0.0.1:9" }),
      newEnvHttpProxyAgent({}),
    ] as const;
    expect(made[0]).toBeInstanceOf(undici.Agent);
    expect(made[1]).toBeInstanceOf(undici.ProxyAgent);
    expect(made[2]).toBeInstanceOf(undici.EnvHttpProxyAgent);
    await Promise.all(made.map((agent) => agent.close()));
  });

  it("load nothing of undici until the first agent is made, and then not its index", () => {
    // A fresh process: this one has loaded the index (above).
    const entry = path.join(dir, "entry.ts");
    fs.writeFileSync(
      entry,
      [
        `const { newAgent } = require(${JSON.stringify(path.join(root, "src", "undici.ts"))});`,
        'const undiciFiles = () => Object.keys(require.cache).filter((k) => k.includes("/node_modules/undici/"));',
        "const before = undiciFiles().length;",
        "const agent = newAgent();",
        "const index = undiciFiles().some((k) => k.endsWith('/node_modules/undici/index.js'));",
        "process.stdout.write(JSON.stringify({ before, after: undiciFiles().length > 0, index, request: typeof agent.request, stream: typeof agent.stream }));",
      ].join("\n"),
    );
    const seen = execFileSync(process.execPath, [path.join(root, "test", "helpers", "run-ts.cjs"), entry], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(JSON.parse(seen)).toEqual({
      before: 0,
      after: true,
      index: false,
      request: "function",
      stream: "function",
    });
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
