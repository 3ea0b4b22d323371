import { ANSWERS, DEFAULT_SEED_PATH, SPEEDS, checkPublicUrl, loadSeed, startEmulator } from "../../emulator";
import { flag, FlagRuleError } from "../kit/args";
import { defineCommand } from "../kit/command";
import { CliError, EXIT_CODES } from "../kit/exit-codes";

const flags = {
  port: flag.int("TCP port on 127.0.0.1 (default 0: a free port)", { min: 0, max: 65535, default: 0 }),
  seed: flag.string("seed file, YAML (default: the demo seed)", () => DEFAULT_SEED_PATH),
  "state-file": flag.string("SQLite file that keeps the state across restarts (default: in memory)"),
  speed: flag.oneOf(
    SPEEDS,
    "how fast deployments and transfers move: instant, fast (default), realistic",
    "fast",
  ),
  strict: flag.switch(
    "refuse request-body members the API does not define (default: ignore them, as the platform does)",
  ),
  "public-url": flag.parsed(
    "the URL clients reach the emulator at (behind a proxy); links in documents start with it",
    (text) => {
      try {
        return checkPublicUrl(text);
      } catch (err) {
        throw new FlagRuleError(err instanceof Error ? err.message : String(err));
      }
    },
  ),
  answers: flag.oneOf(
    ANSWERS,
    "deployment answers: documented (default, the spec's shapes) or platform (as the real platform sends them)",
    "documented",
  ),
};

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
  async run({ flags }, { io }) {
    const { port, speed, answers } = flags;
    const stateFile = flags["state-file"];
    const publicUrl = flags["public-url"];
    const seed = seedOf(flags.seed);
    const emulator = await startEmulator({
      answers,
      seed,
      speed,
      port,
      strict: flags.strict,
      ...(stateFile === undefined ? {} : { stateFile }),
      ...(publicUrl === undefined ? {} : { publicUrl }),
    }).catch((err: unknown) => {
      throw listenProblem(err, port) ?? err;
    });
    const signal = waitForSignal();
    io.say(`listening on ${emulator.url}`);
    const received = await signal;
    await emulator.close();
    io.warn(`stackwright emulator: stopped (${received})`);
    return EXIT_CODES.ok;
  },
});
