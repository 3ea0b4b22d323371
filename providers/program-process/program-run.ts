/**
 * One run of the program: the environment it reads (credentials, the reads report's folder, a
 * change-window override), the directory the engine runs it in, and what its data sources have
 * read. A program process of the language host runs once, so it has one run: its own environment
 * and working directory. A host that runs the program in-process for several stacks at once
 * (src/program/host.ts) gives each run its own ({@link withProgramRun}), found again through the
 * async context of everything the run does (the SDK keeps its own per-run state the same way).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { DataRead } from "../../src/api";

export interface ProgramRun {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The program directory: where the engine runs the program and the provider plugin. */
  readonly workDir: string;
  readonly memo: Map<string, Promise<unknown>>;
  /** Every data-source call answered in this run, by cache key, with the digest of its answer. */
  readonly answered: Map<string, DataRead>;
}

export interface ProgramRunOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly workDir: string;
}

const newRun = (options: ProgramRunOptions): ProgramRun => ({
  ...options,
  memo: new Map(),
  answered: new Map(),
});
const runs = new AsyncLocalStorage<ProgramRun>();

/** The program process's one run. */
export const processRun: ProgramRun = newRun({ env: process.env, workDir: process.cwd() });

export const currentRun = (): ProgramRun => runs.getStore() ?? processRun;

/** Runs `fn` as one program run of its own, with its own environment and directory. */
export function withProgramRun<T>(options: ProgramRunOptions, fn: () => T): T {
  return runs.run(newRun(options), fn);
}

/** The environment of the current run: the process's, or the one its host gave it. */
export function programEnv(): Readonly<Record<string, string | undefined>> {
  return currentRun().env;
}

/** The program directory of the current run. */
export function programWorkDir(): string {
  return currentRun().workDir;
}
