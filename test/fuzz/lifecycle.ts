/**
 * The resource lifecycle of `pulumi up`, in process, over the providers' runtime contract (`v1`,
 * the object the serialized providers call): check, diff, create / update / delete / read, with
 * the engine's rules that matter for exactly-once:
 *
 * - a create that fails with an init error (`InitError`: the object exists but did not finish)
 *   is recorded with its id and properties, and the next run updates it even when diff sees no
 *   change; any other failed create records nothing;
 * - a replacement creates the new object and then deletes the old one, or the reverse when diff
 *   asks for `deleteBeforeReplace`; an old half not deleted yet stays in the state until it is;
 * - a failed update keeps the old outputs (an init error records its properties);
 * - resources no longer declared are deleted after the others, in reverse order;
 * - the run stops at the first failure;
 * - refresh reads every resource, and forgets those whose id comes back empty.
 *
 * What it leaves out (component resources, parallel steps, previews, the checkpoint file) is
 * what the engine-level kill tests cover with the real engine.
 */
import { v1 } from "../../providers/behaviour";
import { InitError } from "../../providers/behaviour/errors";
import type { Props, ProviderMethods, ResourceKind } from "../../providers/shared/contract";

/** The resource types the fuzz drives, by their key in the provider module. */
export type TypeKey = Extract<
  ResourceKind,
  "deployment" | "environmentLock" | "snapshot" | "snapshotRestore"
>;

const providers: Record<TypeKey, ProviderMethods> = v1;

/** One declared resource: its name (the URN's last part), type and inputs. */
export interface Declared {
  name: string;
  type: TypeKey;
  /** Inputs; may read outputs of resources declared before it. */
  inputs: (state: ReadonlyMap<string, Recorded>) => Props;
}

/** One resource as the state records it. */
export interface Recorded {
  type: TypeKey;
  id: string;
  inputs: Props;
  outs: Props;
  /** Created but not finished: the next run updates it whatever diff says. */
  initError: boolean;
}

/** The state of one stack; kept across runs like a checkpoint. */
export type State = Map<string, Recorded>;

const PROVIDER_TEXT = "exports.handler = () => ({})";

/** Runs `up` for `declared` (in order) against `state`; rejects with the first failure. */
export async function up(state: State, declared: readonly Declared[]): Promise<void> {
  for (const d of declared) {
    const p = providers[d.type];
    const old = state.get(d.name);
    const news = { ...d.inputs(state), __provider: PROVIDER_TEXT };
    const checked = await p.check(old?.inputs ?? {}, news);
    if (checked.failures.length > 0) {
      throw new Error(`${d.name}: check failed: ${checked.failures.map((f) => f.reason).join("; ")}`);
    }
    const inputs = checked.inputs;
    if (old === undefined) {
      await create(state, d, inputs);
      continue;
    }
    const plan = await p.diff(old.id, old.outs, inputs);
    if (plan.replaces.length > 0 && plan.deleteBeforeReplace) {
      await p.delete(old.id, old.outs);
      state.delete(d.name);
      await create(state, d, inputs);
    } else if (plan.replaces.length > 0) {
      // The old half waits under its own key: deleted once the new one exists, or by a later
      // run (as a resource no longer declared) when this run fails after creating it.
      const oldKey = `${d.name}~replaced`;
      state.delete(d.name);
      state.set(oldKey, old);
      try {
        await create(state, d, inputs);
      } catch (error) {
        if (!state.has(d.name)) {
          state.delete(oldKey);
          state.set(d.name, old);
        }
        throw error;
      }
      await p.delete(old.id, old.outs);
      state.delete(oldKey);
    } else if (plan.changes || old.initError) {
      try {
        const { outs } = await p.update(old.id, old.outs, inputs);
        state.set(d.name, { ...old, inputs, outs, initError: false });
      } catch (error) {
        if (error instanceof InitError) {
          state.set(d.name, { ...old, inputs, outs: error.properties, initError: true });
        }
        throw error;
      }
    } else {
      state.set(d.name, { ...old, inputs });
    }
  }
  const names = new Set(declared.map((d) => d.name));
  for (const [name, r] of [...state].reverse()) {
    if (names.has(name)) continue;
    await providers[r.type].delete(r.id, r.outs);
    state.delete(name);
  }
}

async function create(state: State, d: Declared, inputs: Props): Promise<void> {
  try {
    const { id, outs } = await providers[d.type].create(inputs);
    state.set(d.name, { type: d.type, id, inputs, outs, initError: false });
  } catch (error) {
    if (error instanceof InitError) {
      state.set(d.name, { type: d.type, id: error.id, inputs, outs: error.properties, initError: true });
    }
    throw error;
  }
}

/** `pulumi refresh`: reads every resource whose type can be read; forgets those gone. */
export async function refresh(state: State): Promise<void> {
  for (const [name, r] of [...state]) {
    const live = await providers[r.type].read(r.id, { ...r.outs, __provider: PROVIDER_TEXT });
    if (live.id === "") state.delete(name);
    else state.set(name, { ...r, id: live.id, outs: live.props });
  }
}

/** What a preview would do: names of resources to create, replace, update or delete. */
export async function plannedChanges(state: State, declared: readonly Declared[]): Promise<string[]> {
  const changes: string[] = [];
  for (const d of declared) {
    const old = state.get(d.name);
    const checked = await providers[d.type].check(old?.inputs ?? {}, {
      ...d.inputs(state),
      __provider: PROVIDER_TEXT,
    });
    if (old === undefined) {
      changes.push(`create ${d.name}`);
      continue;
    }
    const plan = await providers[d.type].diff(old.id, old.outs, checked.inputs);
    if (plan.replaces.length > 0) changes.push(`replace ${d.name} (${plan.replaces.join(", ")})`);
    else if (plan.changes || old.initError) changes.push(`update ${d.name}`);
  }
  const names = new Set(declared.map((d) => d.name));
  for (const name of state.keys()) if (!names.has(name)) changes.push(`delete ${name}`);
  return changes;
}
