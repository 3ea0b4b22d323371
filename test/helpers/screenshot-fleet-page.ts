/**
 * Writes the operator guide's picture of the fleet page (docs/fleet-page.png, or the path given): the page
 * of the demo fleet that `npm start` builds, shot in the headless Chromium the browser tests use,
 * with the drifted cell's details open. Run by scripts/screenshot-fleet-page.sh (after a build).
 *
 * In a scratch copy of the project, against the emulator with its demo seed on a free port:
 *  1. the main job (`stackwright start`, as `npm start` runs it, on that emulator): acme-web's uat
 *     deployed (in sync), its prod promotion waiting for an approval;
 *  2. what people do next, through the API as they could: the Stack Manager of the demo's
 *     intranet lifts its prod freeze and adds `stacks-config/acme-intranet.yaml`, whose first `up`
 *     deploys test and fails on prod (the platform's build fails: the emulator's hook for it);
 *     a Release Manager deploys release/2026-11 to acme-web's uat by hand (drift);
 *  3. `stackwright status --html` as that Release Manager, who sees both sites.
 */
import "../../src/sqlite-warning";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { createClient } from "../../src/client";
import { DEFAULT_SEED_PATH, startEmulator } from "../../src/emulator";
import { countsLine, FleetStatus } from "../../src/observe";
import { launchChromium } from "./browser";
import { emulatorHooks } from "./emulator";
import { createScratchProject } from "./scratch-project";

/** Bound of each `stackwright` run (the engine on a loaded 2-core machine). */
const RUN_TIMEOUT_MS = 240_000;

interface User {
  readonly email: string;
  readonly token: string;
}
/** The demo seed's Stack Manager of acme-web (what `npm start` runs as). */
const OPS: User = { email: "ops@example.com", token: "demo-token" };
/** Its Release Manager of acme-web, Stack Manager of acme-intranet. */
const RELEASE: User = { email: "release@example.com", token: "release-token" };

const INTRANET_FILE = `stack: acme-intranet

environments:
  test:
    deployment:
      ref_type: branch
      ref: main
      title: Deploy main to test
      approval: bypass_and_start
  prod:
    deployment:
      ref_type: branch
      ref: main
      title: Deploy main to production
      approval: bypass_and_start
`;

/** Runs `stackwright ARGS` in `dir` to its end (bounded); resolves with its exit code and output. */
function stackwright(
  dir: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [path.join(dir, "bin", "stackwright.js"), ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`stackwright ${args.join(" ")} did not end within ${RUN_TIMEOUT_MS / 1000} s:\n${out}`));
    }, RUN_TIMEOUT_MS);
    child.on("error", fail);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

/** Shoots the page into `out`; resolves with the page's counts line. */
async function main(out: string): Promise<string> {
  const project = createScratchProject();
  const emulator = await startEmulator({
    seed: DEFAULT_SEED_PATH,
    stateFile: path.join(project.dir, ".stackwright", "emulator.db"),
    speed: "instant",
    port: 0,
  });
  const as = (who: User) => ({
    ...project.env,
    STACKWRIGHT_API_URL: emulator.url,
    STACKWRIGHT_EMAIL: who.email,
    STACKWRIGHT_API_TOKEN: who.token,
    STACKWRIGHT_PROXY: "direct",
  });
  const release = createClient({
    baseUrl: emulator.url,
    ...RELEASE,
    environment: { STACKWRIGHT_PROXY: "direct" },
  });
  try {
    const expect = async (args: string[], who: User, codes: readonly number[]) => {
      const run = await stackwright(project.dir, args, as(who));
      if (run.code === null || !codes.includes(run.code)) {
        throw new Error(`stackwright ${args.join(" ")} exited ${String(run.code)}:\n${run.out}`);
      }
    };
    await expect(["start", "--project", project.dir], OPS, [0]);

    await release.locks.unlock("acme-intranet", "prod");
    await emulatorHooks(emulator.url).nextOutcome(
      "acme-intranet",
      "prod",
      "fail",
      "composer install failed: silverstripe/framework 6.0 requires php ^8.3",
    );
    fs.writeFileSync(path.join(project.dir, "stacks-config", "acme-intranet.yaml"), INTRANET_FILE);
    // Exit 1: prod's deployment failed, which is what the picture shows.
    await expect(["up", "acme-intranet", "--project", project.dir], RELEASE, [1]);

    const hand = await release.deployments.create("acme-web", "uat", {
      ref_type: "branch",
      ref: "release/2026-11",
      title: "Hotfix from the release branch",
      bypass_and_start: true,
    });
    await release.waitForDeployment("acme-web", "uat", hand.id);

    const page = path.join(project.dir, "fleet.html");
    const json = path.join(project.dir, "fleet.json");
    await expect(["status", "--project", project.dir, "--html", page, "--json", json], RELEASE, [0]);
    const browser = await launchChromium();
    try {
      // Tall enough that the details dialog (centred) leaves the matrix above it in view.
      const tab = await browser.newPage({ viewport: { width: 1100, height: 1250 } });
      await tab.goto(pathToFileURL(page).href);
      await tab.locator('td[data-sync="drifted"] button').first().click();
      // Down to the dialog's bottom edge: the page below it is the timeline the dialog covers.
      const dialog = await tab.locator("dialog[open]").boundingBox();
      const height = Math.ceil((dialog?.y ?? 0) + (dialog?.height ?? 1250) + 24);
      await tab.screenshot({ path: out, clip: { x: 0, y: 0, width: 1100, height: Math.min(height, 1250) } });
    } finally {
      await browser.close();
    }
    return countsLine(FleetStatus.parse(JSON.parse(fs.readFileSync(json, "utf8"))).counts);
  } finally {
    await release.close();
    await emulator.close();
    project.remove();
  }
}

const target = path.resolve(process.argv[2] ?? "docs/fleet-page.png");
main(target).then(
  (counts) => console.log(`wrote ${target}: ${counts}`),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
