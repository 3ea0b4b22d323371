/**
 * `stackwright import --all` against a platform whose stack names and shas a file cannot carry as
 * they are: a hidden name, a name with a path separator, a name that already ends in `.yaml`, a
 * name too long for a file name and a deployment whose sha is not a commit sha. The emulator's
 * seed refuses such names and shas, so a proxy on 127.0.0.1 renames its stacks in the answers
 * (and back in the paths) and replaces one sha. The stacks that can be written are written, the
 * others are skipped with one line each, and the command ends with exit 1.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { stringify } from "yaml";
import { loadDesiredState } from "../../src/config";
import { fixtures } from "../helpers/fixtures";
import { repoRoot } from "../helpers/scratch-project";
import { startStackwright } from "../helpers/stackwright-process";

const OPS = { email: "ops@example.com", token: "demo-token" };
const SHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9011223344";
const BAD_SHA = "b2c3d4e5f60718293a4b5c6d7e8f901122334455";
const LONG = `long-${"n".repeat(140)}`;
/** The emulator's name → the name the proxy shows. */
const RENAMED: Readonly<Record<string, string>> = {
  "hidden-stack": ".hidden",
  "slash-stack": "a/b",
  "yaml-stack": "x.yaml",
  "long-stack": LONG,
};

/** A proxy to `upstream` that renames stacks in answers and back in paths, and makes BAD_SHA `main`. */
async function startRenamingProxy(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      let target = req.url ?? "/";
      for (const [from, to] of Object.entries(RENAMED)) {
        target = target.split(`/${encodeURIComponent(to)}/`).join(`/${from}/`);
        if (target.endsWith(`/${encodeURIComponent(to)}`))
          target = `${target.slice(0, -encodeURIComponent(to).length)}${from}`;
      }
      const answer = await request(`${upstream}${target}`, {
        method: "GET",
        headers: { authorization: req.headers.authorization ?? "", "x-api-version": "2.0" },
      });
      let text = await answer.body.text();
      for (const [from, to] of Object.entries(RENAMED))
        text = text.split(`"${from}"`).join(JSON.stringify(to));
      text = text.split(`"${BAD_SHA}"`).join('"main"');
      res.writeHead(answer.statusCode, { "content-type": "application/vnd.api+json" });
      res.end(text);
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function stack(name: string, sha: string) {
  return {
    name,
    members: [{ email: OPS.email, role: "Stack Manager" as const }],
    environments: [
      {
        name: "uat",
        usage: "UAT" as const,
        build_sha: sha,
        deployments: [{ sha, ref_type: "sha" as const, ref: sha, deployer: OPS.email }],
      },
    ],
  };
}

const test = fixtures({
  seed: {
    yaml: stringify({
      users: [{ email: OPS.email, token: OPS.token, username: "ops" }],
      stacks: [
        stack("plain", SHA),
        ...Object.keys(RENAMED).map((name) => stack(name, SHA)),
        stack("bad-sha", BAD_SHA),
      ],
    }),
  },
}).extend("proxy", { scope: "file" }, async ({ emulatorInProcess }, { onCleanup }) => {
  const proxy = await startRenamingProxy(emulatorInProcess.url);
  onCleanup(() => proxy.close());
  return proxy;
});

test("writes the stacks it can, skips the others with one line each, and exits 1", async ({
  proxy,
  scratchDir,
}) => {
  const into = path.join(scratchDir, "stacks-config");
  const run = startStackwright(repoRoot, ["import", "--all", "--into", into], {
    PATH: process.env["PATH"] ?? "",
    STACKWRIGHT_API_URL: proxy.url,
    STACKWRIGHT_EMAIL: OPS.email,
    STACKWRIGHT_API_TOKEN: OPS.token,
  });
  const status = await run.exited;
  const out = run.output();
  expect(status, out).toBe(1);
  expect(fs.readdirSync(into).sort()).toEqual(["plain.yaml", "schema.json", "x.yaml"]);
  const skipped = out.split("\n").filter((line) => line.startsWith("stackwright import: skipped "));
  expect(skipped.sort()).toEqual([
    `stackwright import: skipped ".hidden": the name starts with '.', and the loader skips hidden files; not written`,
    `stackwright import: skipped "a/b": the name holds a path separator ('/' or '\\'); not written`,
    expect.stringMatching(
      /^stackwright import: skipped "bad-sha": bad-sha\/uat: deployment \d+ has the sha "main" on the platform, which is not a commit sha \(7 to 40 lowercase hex digits\); nothing is pinned to it$/,
    ),
    `stackwright import: skipped "${LONG.slice(0, 60)}…": the name is 145 bytes long, over the 100 a file name may take; not written`,
  ]);
  expect(out).toContain("stackwright import: 4 stacks were skipped (listed above); the others were imported");
  const loaded = await loadDesiredState(into);
  expect(loaded.ok).toBe(true);
}, 120_000);

test("goes on with the other stacks when the API fails for one, naming it in one line at the end (exit 1)", async ({
  emulatorInProcess: emulator,
  proxy,
  scratchDir,
}) => {
  const into = path.join(scratchDir, "after-api-error");
  // More failures than the client's retries: the list of plain's deployments fails for good.
  await emulator.hooks.fault({
    method: "GET",
    path: "/svc/project/plain/environment/uat/deploys",
    kind: "status",
    status: 500,
    count: 50,
  });
  try {
    const run = startStackwright(repoRoot, ["import", "--all", "--into", into], {
      PATH: process.env["PATH"] ?? "",
      STACKWRIGHT_API_URL: proxy.url,
      STACKWRIGHT_EMAIL: OPS.email,
      STACKWRIGHT_API_TOKEN: OPS.token,
    });
    const status = await run.exited;
    const out = run.output();
    expect(status, out).toBe(1);
    expect(fs.readdirSync(into).sort()).toEqual(["schema.json", "x.yaml"]);
    const skipped = out.split("\n").filter((line) => line.startsWith("stackwright import: skipped "));
    expect(skipped).toHaveLength(5);
    expect(skipped.sort()[4]).toMatch(
      /^stackwright import: skipped "plain": reading it from the API failed, nothing written: .*\/svc\/project\/plain\/environment\/uat\/deploys.*500/,
    );
    expect(out).toContain(
      "stackwright import: 5 stacks were skipped (listed above); the others were imported",
    );
  } finally {
    await emulator.hooks.clearFaults();
  }
}, 120_000);
