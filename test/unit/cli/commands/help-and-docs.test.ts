import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { previewCommand } from "../../../../src/cli/commands/engine";
import { runInProcess } from "../../../helpers/in-process";

const doc = (name: string) => fs.readFileSync(path.resolve(__dirname, "../../../..", name), "utf8");

// Issue 27, "Why" 6: what the help and the docs tell a user is what the tool does.
describe("the help and the docs", () => {
  afterEach(() => vi.restoreAllMocks());

  it("give preview's --concurrency default as the code has it: two per core", async () => {
    const run = await runInProcess(previewCommand, ["--help"]);
    expect(run.code).toBe(0);
    const help = run.stdout;
    expect(help).toMatch(/--concurrency <value>\n\s+stacks run at once \(default: two per core\)/);
    expect(doc("docs/guide.md")).toContain("`--concurrency K`: stacks run at once (default: two per core");
  });

  it("run validate the way the README does, which works after npm ci", () => {
    const text = doc("docs/stacks-config.md");
    expect(text).not.toMatch(/^stackwright validate/m);
    expect(text).toContain("npm run stackwright -- validate");
  });

  it("say how to try the S3 backend locally: the server, starting it, a bucket", () => {
    const text = doc("docs/state.md");
    expect(text).toContain("npm run s3-server\n");
    expect(text).toContain(".tools/s3-server/bin/moto_server -H 127.0.0.1 -p 4566 &");
    expect(text).toMatch(/curl .*-X PUT http:\/\/127\.0\.0\.1:4566\/stackwright-state/);
  });

  it("say Node.js 22 or later, as bin/stackwright.js and package.json require", () => {
    expect(doc("README.md")).toContain("Node.js 22 or later");
    expect(doc("README.md")).not.toContain("Node.js 20 or later");
    expect(JSON.parse(doc("package.json")).engines.node).toBe(">=22");
  });
});
