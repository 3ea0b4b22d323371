/**
 * The never-repeated creates of a stack (a restore, a record method) that are in flight, kept in
 * the state's backend beside the checkpoint, so that no kill makes the next `up` run one again.
 *
 * The engine's own record of a create in flight, its pending operation, covers a killed engine
 * (pending-creates.ts settles it). It does not cover an engine that outlives the processes that
 * serve it: when the provider host and this process are killed (`pkill -9 node`, an out-of-memory
 * kill of both) while the engine lives on, the engine sees the create fail, drops the pending
 * operation and records nothing, and no one is left to say the request may have reached the
 * platform. So before the shared provider host calls such a create it has this process record it
 * here, and once the engine has the answer this process forgets it (providers/plugin-host/
 * protocol.ts). A record still here at the next `up` whose resource the checkpoint does not hold
 * is a suspect: if the program declares the same create again (same URN, same inputs), the host
 * answers it with an unknown outcome instead of running it, and says so. Changing its `trigger`
 * (new inputs) runs it again on purpose.
 *
 * Only this stack's lock holder writes the record (the CLI that runs the engine).
 */
import { z } from "zod";
import {
  typeToken,
  UNKNOWN_OUTCOME_ID,
  UNKNOWN_OUTCOME_OUTPUTS,
  urnName,
  urnType,
  typeNameOf,
} from "../../api";
import { inFlightCreate, type InFlightCreate, type RunGuard } from "../../program";
import { inFlightKey, parseJson } from "../../state-backend";
import type { LockTarget } from "./lock-guard";
import { readLocks } from "./locks";
import { inFlightLine, latestDeployment } from "./pending-creates";

const Journal = z.strictObject({ version: z.literal(1), creates: z.array(inFlightCreate) });
type Journal = z.infer<typeof Journal>;

/** The URNs the stack's checkpoint records (none when it has none, or is not one we can read). */
async function recordedUrns(target: LockTarget): Promise<Set<string>> {
  const resources = (await latestDeployment(target))?.resources ?? [];
  return new Set(resources.flatMap((r) => (typeof r["urn"] === "string" ? [r["urn"]] : [])));
}

/** The record, or an error that says where it is and what to do. */
function parseJournal(text: string, key: string, target: LockTarget): Journal {
  const parsed = Journal.safeParse(parseJson(text));
  if (parsed.success) return parsed.data;
  throw new Error(
    `${key} in ${target.store.description} is not a record of creates in flight that Stackwright ` +
      "writes, so whether a restore or record method of this stack may have run cannot be told. " +
      "Check the environments of this stack, then delete that object and run again.",
  );
}

/** The guard of one engine run's never-repeated creates, read from (and kept in) the backend. */
export async function guardCreates(target: LockTarget, log: (line: string) => void): Promise<RunGuard> {
  const key = inFlightKey(target.project, target.stack);
  const text = await target.store.read(key);
  let creates = text === undefined ? [] : parseJournal(text, key, target).creates;
  let writes: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    const next = writes.then(() =>
      creates.length === 0
        ? target.store.remove(key)
        : target.store.write(key, `${JSON.stringify({ version: 1, creates } satisfies Journal, null, 2)}\n`),
    );
    // A failed write fails its own caller; the next one still runs.
    writes = next.catch(() => undefined);
    return next;
  };
  if (creates.length > 0) {
    // Those the checkpoint holds were recorded, by the engine or by pending-creates.ts. Only a run
    // that may hold the stack forgets them: while another run's engine holds the lock, its
    // records of creates in flight are being written, and a write here could lose one.
    const recorded = await recordedUrns(target);
    const left = creates.filter((c) => !recorded.has(c.urn));
    if (left.length !== creates.length) {
      creates = left;
      if ((await readLocks(target.store, target.project, target.stack)).length === 0) await save();
    }
  }
  const types = Object.fromEntries(
    Object.entries(UNKNOWN_OUTCOME_OUTPUTS).map(([name, outputs]) => [
      typeToken(name as keyof typeof UNKNOWN_OUTCOME_OUTPUTS),
      outputs,
    ]),
  );
  const typeName = (urn: string) => typeNameOf(urnType(urn));
  return {
    spec: {
      types,
      unknownId: UNKNOWN_OUTCOME_ID,
      suspects: creates.map((create) => ({
        create,
        note: inFlightLine(target.stack, typeName(create.urn), urnName(create.urn), "an earlier run stopped"),
      })),
    },
    record(create: InFlightCreate) {
      creates = [...creates, create];
      return save();
    },
    answered(create: InFlightCreate) {
      const at = creates.findIndex((c) => c.urn === create.urn && c.inputs === create.inputs);
      if (at < 0) return Promise.resolve();
      creates = creates.filter((_, i) => i !== at);
      return save().catch((err: unknown) =>
        log(
          `stackwright: ${target.stack}: could not forget a create that was answered (${err instanceof Error ? err.message : String(err)}); ` +
            "the next run forgets it once the state holds it",
        ),
      );
    },
  };
}
