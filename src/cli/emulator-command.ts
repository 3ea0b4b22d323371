import { DEFAULT_SEED_PATH, SPEEDS, type Speed, startEmulator } from "../emulator";
import { describeFlags, parseFlags, UsageError, type FlagSpec } from "./args";

const flagsSpec = {
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
} satisfies FlagSpec;

const USAGE = `usage: stackwright emulator [flags]

Runs the reference server of the API on 127.0.0.1 until SIGINT or SIGTERM. The demo seed is
${DEFAULT_SEED_PATH}.

flags:
${describeFlags(flagsSpec)}`;

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

/** `stackwright emulator`: runs the reference server until SIGINT or SIGTERM. */
export async function runEmulatorCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  let port = 0;
  let speed: Speed = "fast";
  let flags: ReturnType<typeof parseFlags<typeof flagsSpec>>["flags"];
  try {
    const parsed = parseFlags("emulator", argv, flagsSpec);
    flags = parsed.flags;
    const portText = flags.port;
    if (portText !== undefined) {
      if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
        throw new UsageError(
          `stackwright emulator: --port needs a port number from 0 to 65535, got '${portText}'`,
        );
      }
      port = Number(portText);
    }
    const speedText = flags.speed;
    if (speedText !== undefined) {
      const known = SPEEDS.find((s) => s === speedText);
      if (known === undefined) {
        throw new UsageError(
          `stackwright emulator: --speed must be one of ${SPEEDS.join(", ")}, got '${speedText}'`,
        );
      }
      speed = known;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const stateFile = flags["state-file"];
  let emulator;
  try {
    emulator = await startEmulator({
      seed: flags.seed ?? DEFAULT_SEED_PATH,
      speed,
      port,
      ...(stateFile === undefined ? {} : { stateFile }),
    });
  } catch (err) {
    console.error(`stackwright emulator: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const signal = waitForSignal();
  process.stdout.write(`listening on ${emulator.url}\n`);
  const received = await signal;
  await emulator.close();
  console.error(`stackwright emulator: stopped (${received})`);
  return 0;
}
