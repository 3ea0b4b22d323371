import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DocumentedMetaDocument } from "../../../src/api";
import { TEST_SEED_PATH, TWO_EMULATOR_STARTS_MS, spawnEmulator } from "../../helpers/emulator";
import { apiCaller } from "../../helpers/emulator-http";

const RUN = [
  resolve(__dirname, "../../helpers/run-ts.cjs"),
  resolve(__dirname, "../../helpers/emulator-main.ts"),
];

function runToEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...RUN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe("stackwright emulator", { timeout: TWO_EMULATOR_STARTS_MS }, () => {
  it("prints the listening line first, serves the seed and stops cleanly on SIGTERM", async () => {
    const p = await spawnEmulator(["--port", "0", "--seed", TEST_SEED_PATH, "--speed", "instant"]);
    const meta = await apiCaller(p.url)("GET", "/svc/meta");
    expect(DocumentedMetaDocument.parse(meta.body).meta.whoami).toBe("ops@example.com");
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
  });

  it("starts on the demo seed when no seed is given, and stops on SIGINT", async () => {
    const p = await spawnEmulator([]);
    expect((await apiCaller(p.url)("GET", "/svc/projects")).status).toBe(200);
    p.child.kill("SIGINT");
    expect(await p.exited).toBe(0);
  });

  it.each([
    [
      ["--prot", "1"],
      "unknown flag '--prot'. Allowed flags: --port, --seed, --state-file, --speed, --strict, --public-url",
    ],
    [["--seed"], "--seed needs a value (seed file, YAML (default: the demo seed))"],
    [["--speed", "warp"], "--speed must be one of instant, fast, realistic, not 'warp'"],
    [["--port", "99999"], "--port must be a whole number from 0 to 65535, not '99999'"],
    [["--public-url", "ftp://x"], "--public-url public URL 'ftp://x' must start with http:// or https://"],
  ])("refuses %j with exit code 2 and a clear message", async (args, message) => {
    const r = await runToEnd(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
  });

  it("exits 2 naming the problem when the seed is invalid", async () => {
    const r = await runToEnd(["--seed", resolve(__dirname, "cli.test.ts")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cli.test.ts");
  });
});
