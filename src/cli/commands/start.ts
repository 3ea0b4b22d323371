/**
 * `stackwright start` (what `npm start` runs): the main job on embedded defaults. It validates
 * stacks-config/, starts the emulator with its state persisted under .stackwright/, runs `up` on
 * each API stack's stack of the `dev` target (migrating a single-stack state first) and shows what
 * it made (Stackwright's display, display/) and each environment's links. A second run changes
 * nothing. With STACKWRIGHT_API_URL set it runs against that API instead, with no emulator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigValidationError, loadDesiredState } from "../../config";
import { flag } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, combinedExitCode } from "../kit/exit-codes";
import { closingTable, defaultConcurrency, fanOut } from "../fleet/fan-out";
import { legacyProblem, migrateTarget } from "../fleet/migrate";
import { openTarget, stackNameOf } from "../fleet/open-target";
import { commandLine } from "../../project/invocation";
import { closingLines } from "../display/closing";
import { runChanges } from "../display/changes";
import { liveDisplay, RunDisplay } from "../display/display";
import { handleInterrupts } from "../engine/interrupt";
import { SPEEDS } from "../../emulator/scheduler";
import { targetFlags } from "../kit/flag-sets";

/** The port `npm start` prefers for the embedded emulator (the apiUrl in Pulumi.dev.yaml). */
export const EMBEDDED_PORT = 8787;

/** The demo seed's Stack Manager; used only against the embedded emulator. */
export const DEMO_CREDENTIALS = { email: "ops@example.com", token: "demo-token" } as const;

const flags = {
  ...targetFlags,
  speed: flag.oneOf(SPEEDS, "the embedded emulator's pace: instant, fast (default) or realistic", "fast"),
  port: flag.int(
    `the embedded emulator's port (default ${EMBEDDED_PORT}, the apiUrl of Pulumi.dev.yaml, or a free port while that one is held; 0: a free port)`,
    { min: 0, max: 65535, default: EMBEDDED_PORT },
  ),
};

/** The part of the environment that points the engine at an API. */
interface ApiTarget {
  readonly env: Record<string, string>;
  readonly description: string;
  close(): Promise<void>;
}

async function embeddedEmulator(
  projectDir: string,
  pace: (typeof SPEEDS)[number],
  port: number,
): Promise<ApiTarget> {
  // Loaded only here: `validate` and friends never open the emulator's database.
  const { DEFAULT_SEED_PATH, startEmulator, StateFileInUseError } = await import("../../emulator/index.js");
  const stateDir = path.join(projectDir, ".stackwright");
  fs.mkdirSync(stateDir, { recursive: true });
  const stateFile = path.join(stateDir, "emulator.db");
  // The port of Pulumi.dev.yaml's apiUrl, so links in the outputs stay valid between runs; any
  // free port when something else holds it.
  const options = { seed: DEFAULT_SEED_PATH, stateFile, speed: pace };
  const shown = path.relative(process.cwd(), stateFile) || stateFile;
  let emulator: { url: string; close(): Promise<void> };
  let description: string;
  try {
    emulator = await startEmulator({ ...options, port }).catch((err: unknown) => {
      if (err instanceof Error && "code" in err && err.code === "EADDRINUSE") return startEmulator(options);
      throw err;
    });
    description = `the embedded emulator at ${emulator.url} (state in ${shown})`;
  } catch (err) {
    // An emulator already serves this state file (one kept running, as the README's laptop flow
    // does): the run uses it, never a second server over the same file.
    if (!(err instanceof StateFileInUseError)) throw err;
    const url = err.holder.url;
    if (url === undefined || !(await answers(url))) {
      throw new CliError(
        "usage",
        `${shown} is held by process ${err.holder.pid}, which does not answer${url === undefined ? "" : ` at ${url}`}; ` +
          `stop it (kill ${err.holder.pid}) and run start again`,
      );
    }
    emulator = { url, close: () => Promise.resolve() };
    description = `the emulator of process ${err.holder.pid} at ${url}, which serves ${shown}`;
  }
  return {
    env: {
      STACKWRIGHT_API_URL: emulator.url,
      STACKWRIGHT_EMAIL: DEMO_CREDENTIALS.email,
      STACKWRIGHT_API_TOKEN: DEMO_CREDENTIALS.token,
      // On this machine's loopback: never through a proxy that HTTPS_PROXY may name.
      STACKWRIGHT_PROXY: "direct",
    },
    description,
    close: () => emulator.close(),
  };
}

/** True when a server answers HTTP at `url` within a few seconds (any status). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/_emulator/requests`, { signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

export const startCommand = defineCommand({
  name: "start",
  summary:
    "Validates stacks-config/, starts the embedded emulator (unless STACKWRIGHT_API_URL is set), runs up on every API stack of the dev target and shows what it made and the links.",
  flags,
  async run({ flags }, { io, env }) {
    const projectDir = flags.project;
    const targetName = flags.target;
    const port = flags.port;

    const configDir = path.join(projectDir, "stacks-config");
    const loaded = await loadDesiredState(configDir);
    if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
    io.say(`stacks-config: ${loaded.state.stacks.map((s) => s.stack).join(", ")} valid`);

    const external = env["STACKWRIGHT_API_URL"];
    const api: ApiTarget =
      external !== undefined && external !== ""
        ? { env: {}, description: `the API at ${external}`, close: async () => {} }
        : await embeddedEmulator(projectDir, flags.speed, port);
    const interrupts = handleInterrupts({ log: io.warn });
    try {
      const target = await openTarget(projectDir, targetName, api.env, env);
      // The one-stack state of earlier versions moves into per-file stacks by itself here.
      if ((await legacyProblem(target)) !== undefined) await migrateTarget(target, io.say);
      io.say(`running up on target '${targetName}' against ${api.description}`);
      const jobs = loaded.state.stacks.map((s) => ({
        apiStack: s.stack,
        stackName: stackNameOf(target, s.stack),
        destroy: false,
      }));
      const display = new RunDisplay({
        operation: "up",
        out: io.stdout,
        live: liveDisplay(io.stdout, env),
        columns: () => io.stdout.columns,
      });
      const outcomes = await fanOut(
        jobs,
        defaultConcurrency(),
        {
          target,
          operation: "up",
          whyEngine: "start runs every engine",
          display,
          refresh: false,
          lockPolicy: { lockWaitMs: 0, staleAfterMs: undefined },
          signal: interrupts.signal,
        },
        io,
      );
      display.close();
      for (const o of outcomes) if (o.failure !== undefined) io.warn(`${o.job.stackName}: ${o.failure}`);
      io.say(`\n${closingTable(outcomes)}`);
      for (const line of closingLines(outcomes, {
        operation: "up",
        upRefresh: commandLine("up --refresh"),
        showOutputs: false,
      }))
        io.say(line);
      const links = outcomes.flatMap((o) => linksOf(o.job.apiStack, runChanges(o.events).outputs));
      if (links.length > 0) io.say(`\n${links.join("\n")}`);
      return combinedExitCode(outcomes.map((o) => o.exitCode));
    } finally {
      interrupts.dispose();
      await api.close();
    }
  },
});

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Each environment's links from a stack's outputs (src/program's `facts` and `stacks`): the site,
 * and its deployment with its state. One line per environment.
 */
export function linksOf(apiStack: string, outputs: Readonly<Record<string, unknown>> | undefined): string[] {
  if (outputs === undefined) return [];
  const facts = record(record(record(outputs["facts"])[apiStack])["environments"]);
  const made = record(record(outputs["stacks"])[apiStack]);
  const environments = [...new Set([...Object.keys(facts), ...Object.keys(made)])].sort();
  return environments.map((env) => {
    const url = text(record(facts[env])["url"]);
    const deployment = record(record(made[env])["deployment"]);
    const id = text(deployment["id"]);
    const link = text(deployment["link"]);
    const state = text(deployment["state"]);
    const parts = [
      `${apiStack}/${env}`,
      ...(url === undefined ? [] : [url]),
      ...(id === undefined
        ? []
        : [
            `deployment ${id}${state === undefined ? "" : ` ${state}`}${link === undefined ? "" : ` ${link}`}`,
          ]),
    ];
    return parts.join("  ");
  });
}
