import { DEFAULT_SEED_PATH, SPEEDS, type Speed, startEmulator } from "../emulator";

const FLAGS = ["--port", "--seed", "--state-file", "--speed"] as const;
type Flag = (typeof FLAGS)[number];

const USAGE = `usage: stackwright emulator [--port N] [--seed FILE] [--state-file FILE] [--speed instant|fast|realistic]

  --port N           TCP port on 127.0.0.1 (default 0: a free port)
  --seed FILE        seed file, YAML (default: the demo seed ${DEFAULT_SEED_PATH})
  --state-file FILE  SQLite file that keeps the state across restarts (default: in memory)
  --speed SPEED      how fast deployments and transfers move (default: fast)`;

class UsageError extends Error {}

function parseArgs(argv: string[]): Map<Flag, string> {
  const values = new Map<Flag, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const flag = FLAGS.find((f) => f === name);
    if (flag === undefined) {
      throw new UsageError(`unknown option '${arg}' (allowed: ${FLAGS.join(", ")})`);
    }
    let value: string | undefined;
    if (eq > 0) {
      value = arg.slice(eq + 1);
    } else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || value === "" || value.startsWith("--")) {
      throw new UsageError(`option ${flag} needs a value`);
    }
    if (values.has(flag)) throw new UsageError(`option ${flag} given twice`);
    values.set(flag, value);
  }
  return values;
}

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
  let values: Map<Flag, string>;
  try {
    values = parseArgs(argv);
    const portText = values.get("--port");
    if (portText !== undefined) {
      if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
        throw new UsageError(`option --port needs a port number from 0 to 65535, got '${portText}'`);
      }
      port = Number(portText);
    }
    const speedText = values.get("--speed");
    if (speedText !== undefined) {
      const known = SPEEDS.find((s) => s === speedText);
      if (known === undefined) {
        throw new UsageError(`option --speed must be one of ${SPEEDS.join(", ")}, got '${speedText}'`);
      }
      speed = known;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`stackwright emulator: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const stateFile = values.get("--state-file");
  let emulator;
  try {
    emulator = await startEmulator({
      seed: values.get("--seed") ?? DEFAULT_SEED_PATH,
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
