/**
 * A generated fleet for the fleet bench: S API stacks of 3 environments each (a deployment in
 * each, a lock on prod, a snapshot on uat), as an emulator seed and as `stacks-config/` files, in
 * a scratch copy of the project; and programs of bare no-op dynamic resources for the floors.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { stringify } from "yaml";
import type { SeedInput } from "../src/emulator";
import { NOOP_PROGRAM } from "./providers";

export const EMAIL = "ops@example.com";
export const TOKEN = "demo-token";
const SHA = "8f3c2a1d9e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a";
const ENVIRONMENTS = [
  { name: "dev", usage: "Test" },
  { name: "uat", usage: "UAT" },
  { name: "prod", usage: "Production" },
] as const;

export const siteName = (i: number) => `site-${String(i).padStart(3, "0")}`;

/**
 * The emulator's world: one stack per site, three environments each. With `deployed`, each
 * environment's build came from a deployment of `main` (a fleet that `stackwright import` adopts).
 */
export function fleetSeed(sites: number, options: { deployed?: boolean } = {}): SeedInput {
  return {
    users: [{ email: EMAIL, token: TOKEN, username: "ops", first_name: "Olivia", surname: "Ops" }],
    stacks: Array.from({ length: sites }, (_, i) => ({
      name: siteName(i),
      title: `Site ${i}`,
      repository_url: `https://git.example.com/${siteName(i)}.git`,
      members: [{ email: EMAIL, role: "Stack Manager" as const }],
      refs: { main: SHA },
      environments: ENVIRONMENTS.map((e) => ({
        name: e.name,
        usage: e.usage,
        url: `https://${e.name}.${siteName(i)}.example.com`,
        build_sha: SHA,
        ...(options.deployed === true
          ? { deployments: [{ sha: SHA, ref_type: "branch" as const, ref: "main", deployer: EMAIL }] }
          : {}),
      })),
    })),
  };
}

/** One site's desired state, as an operator would write it. */
export function siteFile(i: number, trigger = "1"): string {
  return stringify({
    stack: siteName(i),
    environments: {
      dev: { deployment: { ref_type: "branch", ref: "main", approval: "bypass_and_start", trigger } },
      uat: {
        deployment: { ref_type: "branch", ref: "main", approval: "bypass_and_start", trigger },
        snapshots: { nightly: { mode: "db", notes: "bench" } },
      },
      prod: {
        deployment: { ref_type: "branch", ref: "main", approval: "bypass_and_start", trigger },
        lock: { message: "change freeze" },
      },
    },
  });
}

const repoRoot = path.resolve(__dirname, "..", "..");

/**
 * A scratch copy of the project (built dist/, linked node_modules and .tools) with `sites` files
 * (none, an empty stacks-config/, for a fleet that `stackwright import` writes).
 */
export function fleetProject(sites: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-fleet-"));
  for (const entry of ["package.json", "Pulumi.yaml", "bin"]) {
    fs.cpSync(path.join(repoRoot, entry), path.join(dir, entry), { recursive: true });
  }
  fs.cpSync(path.join(repoRoot, "dist"), path.join(dir, "dist"), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  fs.symlinkSync(path.join(repoRoot, ".tools"), path.join(dir, ".tools"));
  // The target `dev`: its settings file holds nothing (the API settings come from the environment,
  // a loopback emulator: the demo passphrase serves it).
  fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), "{}\n");
  const config = path.join(dir, "stacks-config");
  fs.mkdirSync(config);
  for (let i = 0; i < sites; i++) fs.writeFileSync(path.join(config, `${siteName(i)}.yaml`), siteFile(i));
  return dir;
}

/** A project whose program is `BENCH_N` bare no-op dynamic resources (0: the empty program). */
export function floorProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-floor-"));
  fs.cpSync(path.join(repoRoot, "package.json"), path.join(dir, "package.json"));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: stackwright\nruntime: nodejs\nmain: program.js\n");
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  fs.symlinkSync(path.join(repoRoot, ".tools"), path.join(dir, ".tools"));
  fs.writeFileSync(path.join(dir, "program.js"), NOOP_PROGRAM);
  return dir;
}
