/**
 * Whether the last no-change engine run of a stack still proves that the engine would find
 * nothing to do (docs/state.md, "Confirmed without the engine"), decided without the engine and
 * reading only: the same inputs as a run now, the same checkpoint and no lock, and the same
 * answer from every data-source call that run's program made. `up` asks it before it would start
 * an engine (src/cli/fleet/shortcut.ts); `drift` asks it of every stack it observed, and runs the
 * engine's preview only where it does not hold. The one definition of the rules.
 */
import { readDigest, type DataRead } from "../api";
import {
  InputDigests,
  checkpointIdentity,
  lastUpUnfinished,
  readConfirmation,
  stackIsLocked,
  type CheckpointIdentity,
  type Confirmation,
  type StateReader,
} from "../state-backend/read";

/**
 * Makes a recorded read again: its answer, or undefined when it cannot be made again (not a data
 * source of this version, or arguments that do not fit); rejects when the read fails.
 */
export type Reread = (read: DataRead) => Promise<{ readonly answer: unknown } | undefined>;

/** Proven, or why not (and whether a record existed to compare with). */
export type ProofVerdict =
  | { readonly confirmed: true }
  | { readonly confirmed: false; readonly reason: string; readonly record?: true };

export interface ProofCheck {
  readonly store: StateReader;
  readonly project: string;
  /** The Pulumi stack. */
  readonly stack: string;
  /** The digests of the inputs an `up` of the stack would have now. */
  readonly inputs: InputDigests;
  /**
   * True for `drift`: the proof holds whoever reads, as long as every recorded read answers the
   * same when made again as this user (a read-only user checks what the release pipeline's user
   * proved). `up` compares the credentials too: a new token runs the engine.
   */
  readonly anyCredentials?: boolean;
  /**
   * What makes the recorded reads again, asked once and only when the record has reads (opening a
   * client may cost a process: the target's settings); a failure there fails the check.
   */
  readonly rereads: () => Promise<Reread>;
  /** The record and the checkpoint when the caller read them already in this run (not read again). */
  readonly known?: {
    readonly record: Confirmation | undefined;
    readonly checkpoint: CheckpointIdentity | undefined;
  };
}

const differs = (reason: string): ProofVerdict => ({ confirmed: false, reason, record: true });

/** Decides whether the stack's last no-change run still proves it. Reads only. */
export async function proofVerdict(check: ProofCheck): Promise<ProofVerdict> {
  const { store, project, stack, known } = check;
  const record = known === undefined ? await readConfirmation(store, project, stack) : known.record;
  if (record === undefined) {
    return {
      confirmed: false,
      reason: (await lastUpUnfinished(store, project, stack))
        ? "the last up did not finish (killed or failed): this run proves the state again"
        : "no record of a no-change run (the last engine run changed something or warned)",
    };
  }
  const changed = InputDigests.keyof()
    .options.filter((k) => !(k === "credentials" && check.anyCredentials === true))
    .filter((k) => check.inputs[k] !== record.inputs[k]);
  if (changed.length > 0) return differs(`inputs changed: ${changed.join(", ")}`);
  if (await stackIsLocked(store, project, stack)) return differs("the stack is locked");
  const checkpoint = known === undefined ? await checkpointIdentity(store, project, stack) : known.checkpoint;
  if (checkpoint === undefined || checkpoint.digest !== record.checkpoint) {
    return differs("the state changed since (another engine run)");
  }
  if (record.reads.length === 0) return { confirmed: true };
  const reread = await check.rereads();
  // All at once: each is one GET, and the record holds each distinct call once.
  const answers = await Promise.all(
    record.reads.map(async (read) => {
      try {
        const again = await reread(read);
        if (again === undefined) return `${read.name} cannot be read again`;
        return readDigest(again.answer) === read.digest
          ? undefined
          : `${describeRead(read.name, read.args)} changed`;
      } catch {
        return `${describeRead(read.name, read.args)} could not be read`;
      }
    }),
  );
  const live = answers.find((a) => a !== undefined);
  return live === undefined ? { confirmed: true } : differs(`live read: ${live}`);
}

function describeRead(name: string, args: Readonly<Record<string, unknown>>): string {
  const where = [args["stack"], args["environment"]].filter((v) => typeof v === "string").join("/");
  return where === "" ? name : `${name} of ${where}`;
}
