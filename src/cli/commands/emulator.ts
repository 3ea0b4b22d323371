import {
  ANSWERS,
  DEFAULT_SEED_PATH,
  SPEEDS,
  type Answers,
  type Speed,
  checkPublicUrl,
  loadSeed,
  startEmulator,
  StateFileInUseError,
} from "../../emulator";
import type { FlagSpec } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES, UsageError } from "../kit/exit-codes";
import { say, warn } from "../kit/output";

const flags = {
  port: { type: "string", help: "TCP port on 127.0.0.1 (default 0: a free port)" },
  seed: { type: "string", help: "seed file, YAML (default: the demo seed)" },
  "state-file": {
    type: "string",
    help: "SQLite file that keeps the state across restarts (default: in memory)",
  },
  speed: {
    type: "string",
    help: "how fast deployments and transfers move: instant, fast (default), realistic",
  },
  strict: {
    type: "boolean",
    help: "refuse request-body members the API does not define (default: ignore them, as the platform does)",
  },
  "public-url": {
    type: "string",
    help: "the URL clients reach the emulator at (behind a proxy); links in documents start with it",
  },
  answers: {
    type: "string",
    help: "deployment answers: documented (default, the spec's shapes) or platform (as the real platform sends them)",
  },
} satisfies FlagSpec;

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new UsageError(`stackwright emulator: --port needs a port number from 0 to 65535, got '${text}'`);
  }
  return Number(text);
}

function speedOf(text: string | undefined): Speed {
  if (text === undefined) return "fast";
  const known = SPEEDS.find((s) => s === text);
  if (known === undefined) {
    throw new UsageError(`stackwright emulator: --speed must be one of ${SPEEDS.join(", ")}, got '${text}'`);
  }
  return known;
}

function answersOf(text: string | undefined): Answers {
  if (text === undefined) return "documented";
  const known = ANSWERS.find((a) => a === text);
  if (known === undefined) {
    throw new UsageError(
      `stackwright emulator: --answers must be one of ${ANSWERS.join(", ")}, got '${text}'`,
    );
  }
  return known;
}

function publicUrlOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return checkPublicUrl(text);
  } catch (err) {
    throw new UsageError(
      `stackwright emulator: --public-url: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** The seed, read and checked before anything starts: a bad one is a bad value (exit 2). */
function seedOf(file: string): ReturnType<typeof loadSeed> {
  try {
    return loadSeed(file);
  } catch (err) {
    throw new CliError(
      "usage",
      `stackwright emulator: --seed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** A port that cannot be listened on is a bad value too (exit 2), said in one line. */
function listenProblem(err: unknown, port: number): CliError | undefined {
  // A second server on one state file would never see what the first writes (state-lock.ts).
  if (err instanceof StateFileInUseError)
    return new CliError("usage", `stackwright emulator: ${err.message}`);
  const code = typeof err === "object" && err !== null && "code" in err ? err.code : undefined;
  if (code === "EADDRINUSE") {
    return new CliError(
      "usage",
      `stackwright emulator: port ${port} on 127.0.0.1 is in use; pass another --port (0 picks a free one)`,
    );
  }
  if (code === "EACCES") {
    return new CliError(
      "usage",
      `stackwright emulator: port ${port} needs privileges this user lacks; pass --port 1024 or above`,
    );
  }
  return undefined;
}

/**
 * `stackwright emulator`: runs the reference server until SIGINT or SIGTERM. Like every server of
 * ours it exits 0 when stopped by either (README, "Exit codes").
 */
export const runEmulatorCommand = defineCommand({
  name: "emulator",
  summary: `Runs the reference server of the API on 127.0.0.1 until SIGINT or SIGTERM. The demo seed is\n${DEFAULT_SEED_PATH}.`,
  flags,
  async run({ flags }) {
    const port = portOf(flags.port);
    const speed = speedOf(flags.speed);
    const stateFile = flags["state-file"];
    const publicUrl = publicUrlOf(flags["public-url"]);
    const answers = answersOf(flags.answers);
    const seed = seedOf(flags.seed ?? DEFAULT_SEED_PATH);
    const emulator = await startEmulator({
      answers,
      seed,
      speed,
      port,
      strict: flags.strict === true,
      ...(stateFile === undefined ? {} : { stateFile }),
      ...(publicUrl === undefined ? {} : { publicUrl }),
    }).catch((err: unknown) => {
      throw listenProblem(err, port) ?? err;
    });
    const signal = waitForSignal();
    say(`listening on ${emulator.url}`);
    const received = await signal;
    await emulator.close();
    warn(`stackwright emulator: stopped (${received})`);
    return EXIT_CODES.ok;
  },
});
