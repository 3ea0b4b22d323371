/**
 * The `stackwright` command in its own process, as CI runs it: run to its end (bounded), or, for
 * tests that run several at once, signal them or kill them, started with its output collected as
 * it comes and a bounded wait for a text in it.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export interface StackwrightProcess {
  readonly pid: number;
  /** Everything printed so far (stdout and stderr, interleaved). */
  output(): string;
  /** Resolves with the exit code (or 128 + signal number style text for a signal). */
  readonly exited: Promise<number | NodeJS.Signals>;
  /** Waits (bounded) until `predicate` holds for the output. */
  waitForOutput(predicate: (out: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/** How a command run to its end went: its exit status (null: killed at its bound) and output. */
export interface Finished {
  readonly status: number | null;
  /** stdout, then stderr. */
  readonly out: string;
}

/** Runs `file ARGS` in `projectDir` to its end, killed after `timeoutMs`. */
export function runToEnd(
  projectDir: string,
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 240_000,
): Finished {
  const result = spawnSync(file, args, { cwd: projectDir, env, encoding: "utf8", timeout: timeoutMs });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

/**
 * {@link runToEnd} without blocking this process: for a command that talks to a server of the
 * test's own process (an emulator), which must go on answering meanwhile.
 */
export function runToEndAsync(
  cwd: string,
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 240_000,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ status: code, out: `${stdout}${stderr}` }));
  });
}

/** Runs `node bin/stackwright.js ARGS` in `projectDir` to its end (this process waits). */
export function runStackwright(
  projectDir: string,
  args: readonly string[],
  env: Record<string, string>,
): Finished {
  return runToEnd(
    projectDir,
    process.execPath,
    [path.join(projectDir, "bin", "stackwright.js"), ...args],
    env,
  );
}

/** Starts `node bin/stackwright.js ARGS` in `projectDir`, in its own process group. */
export function startStackwright(
  projectDir: string,
  args: readonly string[],
  env: Record<string, string>,
): StackwrightProcess {
  const child = spawn(process.execPath, [path.join(projectDir, "bin", "stackwright.js"), ...args], {
    cwd: projectDir,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once("close", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  if (child.pid === undefined) throw new Error("stackwright did not start");
  return {
    pid: child.pid,
    output: () => out,
    exited,
    async waitForOutput(predicate, what, timeoutMs = 120_000) {
      await waitFor(() => predicate(out), `${what}; output so far:\n${out}`, timeoutMs);
    },
  };
}

/** Polls `condition` every 100 ms until it holds, failing after `timeoutMs` with `what`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Every descendant of `root` (the Pulumi CLI starts its plugins in their own process groups, so
 * killing one group would leave the language host and the provider plugin running).
 */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid === undefined || ppid === undefined || Number.isNaN(pid) || Number.isNaN(ppid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const next = queue.shift();
    for (const child of next === undefined ? [] : (children.get(next) ?? [])) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** The process's command line, words joined by spaces ("" once it is gone). */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** The process's parent, or undefined once it is gone. */
export function parentPid(pid: number): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** True once the process is gone, or a zombie nobody reaps (one whose parent was killed). */
export function hasEnded(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] === "Z";
  } catch {
    return true;
  }
}

/** SIGKILLs `pid` and every process below it at once, as a runner that dies would. */
export function killTree(pid: number): void {
  // One by one, a process killed early could be seen dying by one killed later (an engine whose
  // provider host is gone records the failed call), which a machine that dies never lets happen:
  // freeze the whole tree first (again, for anything started meanwhile), then kill it.
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const p of pids) {
      try {
        process.kill(p, sig);
      } catch {
        // Already gone.
      }
    }
  };
  const frozen = new Set<number>();
  for (let round = 0; round < 5; round++) {
    const fresh = [pid, ...descendants(pid)].filter((p) => !frozen.has(p));
    if (fresh.length === 0) break;
    signal(fresh, "SIGSTOP");
    for (const p of fresh) frozen.add(p);
  }
  signal([...frozen], "SIGKILL");
}

/** Pids of the processes (other than this one) whose working directory lies inside `dir`. */
export function processesIn(dir: string): number[] {
  const root = fs.realpathSync(dir);
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      if (state !== "Z" && (cwd === root || cwd.startsWith(`${root}/`))) pids.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/**
 * SIGKILLs every process still working inside `dir` (an engine, language host or provider plugin
 * left by a killed or ended run) and waits, with a bound, until none is left: a rerun must not meet
 * a lock whose holder is still dying.
 */
export async function killProcessesIn(dir: string, timeoutMs = 20_000): Promise<void> {
  await waitFor(
    () => {
      const left = processesIn(dir);
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      return left.length === 0;
    },
    `the processes of the killed run in ${dir} to end`,
    timeoutMs,
  );
}
