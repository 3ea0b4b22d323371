/**
 * `stackwright start` (what `npm start` runs): the main job on embedded defaults. It validates
 * stacks-config/, starts the emulator with its state persisted under .stackwright/, runs `up` on
 * each API stack's stack of the `dev` target (migrating a single-stack state first) and prints the
 * outputs. A second run changes nothing. With STACKWRIGHT_API_URL
 * set it runs against that API instead, with no emulator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigValidationError, loadDesiredState } from "../../config";
import { flag } from "../kit/args";
import { defineCommand } from "../kit/command";
import { combinedExitCode, EXIT_CODES } from "../kit/exit-codes";
import { closingTable, defaultConcurrency, fanOut } from "../fleet/fan-out";
import { legacyProblem, migrateTarget } from "../fleet/migrate";
import { openTarget, stackNameOf } from "../fleet/open-target";
import { say, warn } from "../kit/output";
import { handleInterrupts } from "../engine/interrupt";
import { SPEEDS } from "../../emulator/scheduler";
import { targetFlags } from "../settings/target-settings";

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
  const { DEFAULT_SEED_PATH, startEmulator } = await import("../../emulator/index.js");
  const stateDir = path.join(projectDir, ".stackwright");
  fs.mkdirSync(stateDir, { recursive: true });
  const stateFile = path.join(stateDir, "emulator.db");
  // The port of Pulumi.dev.yaml's apiUrl, so links in the outputs stay valid between runs; any
  // free port when something else holds it.
  const options = { seed: DEFAULT_SEED_PATH, stateFile, speed: pace };
  const emulator = await startEmulator({ ...options, port }).catch((err: unknown) => {
    if (err instanceof Error && "code" in err && err.code === "EADDRINUSE") return startEmulator(options);
    throw err;
  });
  return {
    env: {
      STACKWRIGHT_API_URL: emulator.url,
      STACKWRIGHT_EMAIL: DEMO_CREDENTIALS.email,
      STACKWRIGHT_API_TOKEN: DEMO_CREDENTIALS.token,
      // On this machine's loopback: never through a proxy that HTTPS_PROXY may name.
      STACKWRIGHT_PROXY: "direct",
    },
    description: `the embedded emulator at ${emulator.url} (state in ${path.relative(process.cwd(), stateFile) || stateFile})`,
    close: () => emulator.close(),
  };
}

export const startCommand = defineCommand({
  name: "start",
  summary:
    "Validates stacks-config/, starts the embedded emulator (unless STACKWRIGHT_API_URL is set), runs up on every API stack of the dev target and prints the outputs.",
  flags,
  async run({ flags }) {
    const projectDir = flags.project;
    const targetName = flags.target;
    const port = flags.port;

    const configDir = path.join(projectDir, "stacks-config");
    const loaded = await loadDesiredState(configDir);
    if (!loaded.ok) throw new ConfigValidationError(loaded.errors);
    say(`stacks-config: ${loaded.state.stacks.map((s) => s.stack).join(", ")} valid`);

    const external = process.env["STACKWRIGHT_API_URL"];
    const api: ApiTarget =
      external !== undefined && external !== ""
        ? { env: {}, description: `the API at ${external}`, close: async () => {} }
        : await embeddedEmulator(projectDir, flags.speed, port);
    const interrupts = handleInterrupts();
    try {
      const target = await openTarget(projectDir, targetName, api.env);
      // The one-stack state of earlier versions moves into per-file stacks by itself here.
      if ((await legacyProblem(target)) !== undefined) await migrateTarget(target, say);
      say(`running up on target '${targetName}' against ${api.description}\n`);
      const jobs = loaded.state.stacks.map((s) => ({
        apiStack: s.stack,
        stackName: stackNameOf(target, s.stack),
        destroy: false,
      }));
      const outcomes = await fanOut(jobs, defaultConcurrency(), {
        target,
        operation: "up",
        refresh: false,
        lockPolicy: { lockWaitMs: 0, staleAfterMs: undefined },
        signal: interrupts.signal,
      });
      for (const o of outcomes) if (o.failure !== undefined) warn(`${o.job.stackName}: ${o.failure}`);
      say(`\n${closingTable(outcomes)}`);
      const total: Record<string, number> = {};
      for (const o of outcomes)
        for (const [op, n] of Object.entries(o.changes)) total[op] = (total[op] ?? 0) + n;
      const changes = Object.entries(total).map(([op, n]) => `${n} ${op}`);
      const code = combinedExitCode(outcomes.map((o) => o.exitCode));
      if (code === EXIT_CODES.ok) {
        say(
          `\n${changes.length === 0 ? "no changes: the platform already matches stacks-config/" : `done: ${changes.join(", ")}`}`,
        );
      }
      return code;
    } finally {
      interrupts.dispose();
      await api.close();
    }
  },
});
