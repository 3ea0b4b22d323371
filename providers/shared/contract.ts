/**
 * The language both processes speak about a resource type: its contract (inputs and outputs,
 * declared once with zod), the property bags of the dynamic-provider protocol, and the shape of
 * the provider module the serialized providers load. Loaded by the program process (resource
 * classes derive their `Args` and outputs from a contract) and by the provider process (`check`
 * validates with the same schema, `create` builds outputs of the same type).
 */
import { z } from "zod";
import type { ResourceTypeName } from "../../src/api";

/** Property bag as the dynamic-provider host passes it. */
export type Props = Record<string, unknown>;

/** One failure of `check`, as the SDK reports it: the property path and the reason. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Result of `check`. */
export interface CheckResult {
  inputs: Props;
  failures: CheckFailure[];
}

/** Result of `diff`: explicit `replaces`, never an API call. */
export interface DiffResult {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

/** The methods of one resource type in the provider process (all six, for every type). */
export interface ProviderMethods {
  check(olds: Props, news: Props): Promise<CheckResult>;
  diff(id: string, olds: Props, news: Props): Promise<DiffResult>;
  create(news: Props): Promise<{ id: string; outs: Props }>;
  read(id: string, props: Props): Promise<{ id: string; props: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
  delete(id: string, props: Props): Promise<void>;
}

/** Where `configure` reads a setting: the dynamic provider's config reader. */
export interface ConfigReader {
  get(key: string): string | undefined;
}

/** The keys of the resource types in the provider module (`v1.<kind>`). */
/** The input a dynamic resource carries its serialized provider in (the SDK's reserved key). */
export const PROVIDER_KEY = "__provider";

export const RESOURCE_KINDS = [
  "deployment",
  "environmentLock",
  "snapshot",
  "snapshotRestore",
  "gitFetch",
  "recordAction",
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/**
 * Version 1 of the provider module (provider-process/index.ts), as serialized providers call it. Versioned so that
 * state written by an older release keeps working: an incompatible change adds `v2` beside it.
 */
export type ProviderModuleV1 = { configure(req: { config: ConfigReader }): Promise<void> } & Record<
  ResourceKind,
  ProviderMethods
>;

/** A name used in an API path (stack, environment) and a numeric API id: the rules of src/api. */
export { SafeName as PathName, NumericId } from "../../src/api";

/** Bound of a wait in seconds. */
export const TimeoutSeconds = z.number().int().positive();

/**
 * Inputs of a resource with a crash-safety marker: the resource class sets `marker_seed` (its
 * identity), `check` fills in `marker`. Neither is an argument of the resource class.
 */
export const MARKER_INPUTS = {
  marker_seed: z.string().min(1),
  marker: z.string().optional(),
};

/** Inputs that the resource class sets itself, never its caller. */
export type InternalInput = keyof typeof MARKER_INPUTS;

/** One resource type: its type name, inputs and outputs, and which inputs make a new object. */
export interface Contract<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  /** The type token is `typeToken(type)` (src/api/resources.ts). */
  readonly type: ResourceTypeName;
  /** The key of the type's methods in the provider module. */
  readonly kind: ResourceKind;
  /** What the resource is given: the API's and the YAML's names. Strict: unknown keys fail `check`. */
  readonly inputs: In;
  /** What the provider records besides the inputs. */
  readonly outputs: Out;
  /** Inputs whose change makes a new object (a replacement). */
  readonly replaceKeys: readonly (keyof z.output<In> & string)[];
}

/** Declares a contract, checking that `replaceKeys` name inputs. */
export function defineContract<In extends z.ZodObject, Out extends z.ZodObject>(
  contract: Contract<In, Out>,
): Contract<In, Out> {
  return contract;
}

/** The names of a contract's outputs (what the resource class declares as outputs to fill). */
export function outputKeys(contract: Contract): string[] {
  return Object.keys(contract.outputs.shape);
}

/**
 * The inputs a state or a plan records for a resource of `contract`, each key read on its own
 * with the contract's rule: a key that does not fit (an older release's shape, a value the
 * engine does not know yet, a secret) is left out rather than failing the whole reading, so
 * readers of recorded inputs (the run summary) use the contract's names and types.
 */
export function recordedInputs<In extends z.ZodObject, Out extends z.ZodObject>(
  contract: Contract<In, Out>,
  inputs: Readonly<Record<string, unknown>>,
): Partial<z.output<In>> {
  const known: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(contract.inputs.shape)) {
    if (inputs[key] === undefined) continue;
    const parsed = z.safeParse(rule as z.ZodType, inputs[key]);
    if (parsed.success && parsed.data !== undefined) known[key] = parsed.data;
  }
  return known as Partial<z.output<In>>;
}

/** True when the resource carries a crash-safety marker. */
export function hasMarker(contract: Contract): boolean {
  return "marker_seed" in contract.inputs.shape;
}
