/**
 * The fingerprint shortcut (docs/state.md, "Confirmed without the engine"): an `up` of a stack
 * whose last engine run found nothing to do is confirmed without starting the engine when it can
 * prove that the engine would find nothing again: the same inputs (src/project/fingerprint.ts), the same
 * checkpoint (no engine ran on the stack since, and none holds its lock), and the same answers
 * from every data source that run read. Anything that differs or cannot be read runs the engine.
 *
 * The record is written only after an engine run that changed nothing (or only recorded, in
 * state, deployments it adopted as they were), warned about nothing and left no pending
 * operation, and is removed before any engine run of the stack starts: a run killed at any point
 * leaves no record, or the one before it, which its own checkpoint then contradicts.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import * as fs from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import {
  DATA_READS_DIR_ENV,
  DataReadsReport,
  dataReadsFileName,
  stackwrightTypeOf,
  typeToken,
} from "../../api";
import {
  createClient,
  processReadBudget,
  readRecorded,
  resolveCredentials,
  type StackwrightClient,
} from "../../client";
import { proofVerdict, type ProofVerdict } from "../../observe";
import {
  checkpointIdentity,
  removeConfirmation,
  stackIsLocked,
  writeConfirmation,
  type InputDigests,
} from "../state/confirmations";
import type { LockTarget } from "../state/lock-guard";
import type { Env } from "../kit/context";
import { upInputDigests, type ShortcutTarget } from "../../project/fingerprint";

/** What the shortcut needs for one run of the CLI. */
export interface Shortcut {
  /** False with `--full`: every stack runs its engine (and a no-change run still records). */
  readonly confirm: boolean;
  /** The digests of a stack's inputs for this run. */
  inputs(stackName: string, stackFile: string | undefined): InputDigests;
  /** The API client of the target's settings (one per run, opened on first use). */
  client(): Promise<StackwrightClient>;
  /** Where the program reports its reads (DATA_READS_DIR_ENV of the engine's environment). */
  readonly readsDir: string;
}

/** A directory for the program's reports, and the variable that tells the program about it. */
export function makeReadsDir(): { dir: string; env: Record<string, string>; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-reads-"));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  // Also when the run stops before its shortcut is opened (a usage error, say).
  process.once("exit", removeDir);
  return {
    dir,
    env: { [DATA_READS_DIR_ENV]: dir },
    // At the run's end: a process that runs several commands keeps no hook per run.
    remove() {
      process.off("exit", removeDir);
      removeDir();
    },
  };
}

export type { ShortcutTarget } from "../../project/fingerprint";

/**
 * The shortcut of one `up` run: `settings` gives the target's decrypted settings when the API
 * is first read (the credentials resolve as the preflight's and the program's do). `close`
 * closes the client and removes the reports.
 */
export function openShortcut(
  /** `env` what the engine's environment adds to `given`, the command's environment. */
  target: ShortcutTarget & { readonly given: Env },
  confirm: boolean,
  readsDir: string,
  settings: () => Promise<(key: string) => string | undefined>,
): Shortcut & { close(): Promise<void> } {
  const env = { ...target.given, ...target.env };
  let opened: Promise<StackwrightClient> | undefined;
  const client = () =>
    (opened ??= settings().then((config) => {
      const { baseUrl, email, token } = resolveCredentials(config, env);
      if (baseUrl === undefined || email === undefined || token === undefined) {
        throw new Error("no API settings");
      }
      return createClient({
        baseUrl: baseUrl.value,
        email: email.value,
        token: token.value,
        environment: env,
        readBudget: processReadBudget(),
      });
    }));
  return {
    confirm,
    readsDir,
    client,
    inputs: (stackName, stackFile) => upInputDigests({ ...target, env }, stackName, stackFile),
    async close() {
      fs.rmSync(readsDir, { recursive: true, force: true });
      if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
    },
  };
}

/** Confirmed, or why not (and whether a record existed to compare with). */
export type Verdict = ProofVerdict;

/** Decides whether the stack's `up` can be confirmed without the engine. Reads only. */
export async function confirmWithoutEngine(
  where: LockTarget,
  now: InputDigests,
  shortcut: Shortcut,
): Promise<Verdict> {
  return proofVerdict({
    ...where,
    inputs: now,
    rereads: async () => {
      const client = await shortcut.client();
      return async (read) => {
        const answer = readRecorded(client, read.name, read.args);
        return answer === undefined ? undefined : { answer: await answer };
      };
    },
  });
}

/** The program's report of its reads in this run (removed first, so an old one is never taken). */
export function readsFile(shortcut: Shortcut, stack: string): string {
  return path.join(shortcut.readsDir, dataReadsFileName(stack));
}

/** Type tokens of our resources, as the engine's events name them. */
const DEPLOYMENT_TYPE = typeToken("Deployment");
const LOCK_TYPE = typeToken("EnvironmentLock");

/**
 * True when a `create` step changed nothing on the platform: a component (a grouping in the
 * state only), the lock resource of an environment kept unlocked (it makes no request), or a
 * Deployment that adopted a finished deployment (`adopt:`, as `stackwright import` writes it):
 * its create reads the deployment and starts or waits for nothing.
 */
function createdOnlyInState(step: NonNullable<EngineEvent["resOutputsEvent"]>["metadata"]): boolean {
  if (stackwrightTypeOf(step.type) === undefined) return true;
  if (step.type === LOCK_TYPE) return step.new?.inputs?.["locked"] === false;
  const inputs = step.new?.inputs ?? {};
  const outputs = step.new?.outputs ?? {};
  const adopted = inputs["adopt"];
  // The sha the environment ran when the program read it: an adopted deployment that was
  // approved, started and finished in this run would have moved the build (and been a write).
  const observed = inputs["observed_sha"];
  return (
    step.type === DEPLOYMENT_TYPE &&
    (typeof adopted === "string" || typeof adopted === "number") &&
    String(adopted) !== "" &&
    outputs["state"] === "Completed" &&
    typeof observed === "string" &&
    observed !== "" &&
    outputs["sha"] === observed
  );
}

/**
 * True when the engine's events show nothing but `same` steps and no warning or error, or, for
 * a stack's first `up` after `stackwright import`, nothing but creates that wrote only state
 * (components, and deployments adopted as they were): that run moved nothing that the next one
 * reads, so what it read proves the next run as well as a no-change run would.
 */
export function provedNoChange(
  changes: Readonly<Record<string, number>>,
  events: readonly EngineEvent[],
): boolean {
  const kinds = Object.keys(changes);
  if (kinds.some((kind) => kind !== "create")) return false;
  if (kinds.length > 0) {
    const steps = events.flatMap((e) =>
      e.resOutputsEvent === undefined ? [] : [e.resOutputsEvent.metadata],
    );
    if (!steps.every((step) => step.op === "same" || (step.op === "create" && createdOnlyInState(step)))) {
      return false;
    }
  }
  return !events.some((e) => {
    const severity = e.diagnosticEvent?.severity;
    return severity === "warning" || severity === "error";
  });
}

/**
 * After a successful `up` (inside its lock): records what it proved when it changed nothing. A
 * run that changed something proves nothing about the next one (its own changes moved what the
 * next run reads), so the next run is a full one and records.
 */
export async function recordNoChangeRun(
  where: LockTarget,
  /** The inputs as they were when the run started. */
  inputs: InputDigests,
  shortcut: Shortcut,
  run: { changes: Readonly<Record<string, number>>; events: readonly EngineEvent[] },
): Promise<boolean> {
  if (!provedNoChange(run.changes, run.events)) return false;
  const { store, project, stack } = where;
  // Another run that took the lock since ours ended would change the checkpoint under the record.
  if (await stackIsLocked(store, project, stack)) return false;
  let report: DataReadsReport;
  try {
    const parsed = DataReadsReport.safeParse(JSON.parse(fs.readFileSync(readsFile(shortcut, stack), "utf8")));
    if (!parsed.success || parsed.data.stack !== stack) return false;
    report = parsed.data;
  } catch {
    return false; // not our program, or it did not report: nothing is proven
  }
  const checkpoint = await checkpointIdentity(store, project, stack);
  if (checkpoint === undefined || checkpoint.pendingOperations > 0) return false;
  await writeConfirmation(store, project, {
    version: 1,
    stack,
    inputs,
    checkpoint: checkpoint.digest,
    reads: report.reads,
    provedAt: new Date().toISOString(),
  });
  // Written after reading the checkpoint: if it moved in between, the record goes again.
  if ((await checkpointIdentity(store, project, stack))?.digest !== checkpoint.digest) {
    await removeConfirmation(store, project, stack);
    return false;
  }
  return true;
}
