/**
 * Helpers shared by the resource types: zod-based `check`, stable markers, progress lines and
 * the inputs/outputs plumbing of the dynamic-provider protocol.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  PROVIDER_KEY,
  type CheckFailure,
  type CheckResult,
  type DiffResult,
  type Props,
} from "../shared/contract";
import { refusal } from "../shared/errors";

export type { CheckFailure, CheckResult, DiffResult, Props };

export { PROVIDER_KEY };

/** The value the engine sends for inputs not known yet during a preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Inputs without the provider key and without values the engine does not know yet. */
export function userInputs(props: Props): Props {
  const out: Props = {};
  for (const [key, value] of Object.entries(props)) {
    if (key !== PROVIDER_KEY && value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/** True when any of the inputs is unknown (computed by another resource during a preview). */
export function unknownKeys(props: Props): Set<string> {
  return new Set(
    Object.entries(props)
      .filter(([, v]) => v === UNKNOWN)
      .map(([k]) => k),
  );
}

/**
 * Validates `news` with `schema` and maps issues to `{property, reason}`. Unknown values (a
 * preview where an input comes from another resource) are not judged: the engine checks again
 * when they are known.
 */
export function checkWith<S extends z.ZodType>(
  schema: S,
  news: Props,
): { failures: CheckFailure[]; value?: z.infer<S> } {
  const inputs = userInputs(news);
  const unknown = unknownKeys(inputs);
  const probe: Props = {};
  for (const [key, value] of Object.entries(inputs)) if (!unknown.has(key)) probe[key] = value;
  const parsed = schema.safeParse(probe);
  if (parsed.success) return { failures: [], value: parsed.data };
  const failures: CheckFailure[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        failures.push({ property: key, reason: `[${key}] is not an input of this resource` });
      continue;
    }
    const property = issue.path.map(String).join(".");
    if (unknown.has(String(issue.path[0] ?? ""))) continue;
    // A required input that is merely unknown right now is not a failure.
    if (issue.code === "invalid_type" && unknown.has(property)) continue;
    failures.push({ property, reason: `[${property}] ${issue.message}` });
  }
  return { failures };
}

/**
 * `check` of a resource with a crash-safety marker: validates like {@link checkWith}, then fills
 * in `marker` from the resource's `marker_seed` and the inputs that force a replacement.
 */
export function checkWithMarker<S extends z.ZodType<{ marker_seed: string }>>(
  schema: S,
  news: Props,
  replaceKeys: readonly (keyof z.infer<S>)[],
): Promise<CheckResult> {
  const { failures, value } = checkWith(schema, news);
  const inputs: Props = { ...news };
  if (value !== undefined) inputs["marker"] = markerOf(value, replaceKeys);
  return Promise.resolve({ inputs, failures });
}

/** The marker `check` filled in, or the same one computed again from the inputs. */
export function markerOf<T extends { marker_seed: string; marker?: string | undefined }>(
  inputs: T,
  replaceKeys: readonly (keyof T)[],
): string {
  return (
    inputs.marker ??
    markerFor(
      inputs.marker_seed,
      replaceKeys.map((k) => inputs[k] ?? ""),
    )
  );
}

/**
 * `diff` of a resource that a change of any identity input replaces (a new snapshot, restore or
 * fetch), where only the wait bound may change in place, with no request.
 */
export function diffReplacing(olds: Props, news: Props, replaceKeys: readonly string[]): Promise<DiffResult> {
  const replaces = changedKeys(olds, news, replaceKeys);
  const updates = changedKeys(olds, news, ["timeout_seconds"]);
  return Promise.resolve({
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: false,
  });
}

/**
 * The recorded outputs with `keys` taken from the new inputs (a key the new inputs leave out is
 * dropped): an update that changes only what the state records, with no request.
 */
export function recordInPlace(olds: Props, news: Props, keys: readonly string[]): Props {
  const outs: Props = { ...olds };
  for (const key of keys) {
    const value = news[key];
    if (value === undefined || value === null) delete outs[key];
    else outs[key] = value;
  }
  return outs;
}

/** Parses inputs for an operation that needs them valid; the error names every property. */
export function parseInputs<S extends z.ZodType>(schema: S, props: Props, what: string): z.infer<S> {
  const parsed = schema.safeParse(userInputs(props));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `[${i.path.map(String).join(".")}] ${i.message}`);
  throw refusal(`${what}: invalid inputs: ${problems.join("; ")}`);
}

/**
 * A marker derived from the resource's identity (project, stack, resource name: the `marker_seed`
 * the resource class sets) and the inputs that force a replacement. It is the same on a rerun
 * after a crash, so create finds the object an interrupted run made; it changes whenever a
 * replacement must make a new object.
 */
export function markerFor(seed: string, parts: readonly unknown[]): string {
  const hash = createHash("sha256")
    .update(JSON.stringify([seed, ...parts]))
    .digest("hex");
  return `sw-${hash.slice(0, 20)}`;
}

/** Text carrying the marker: the user's text, then the marker on its own line. */
export function withMarker(text: string | undefined, marker: string): string {
  const base = (text ?? "").trimEnd();
  return base === "" ? `[stackwright ${marker}]` : `${base}\n[stackwright ${marker}]`;
}

/** Prints one progress line on stdout (the engine passes provider stdout through). */
export function progress(line: string): void {
  process.stdout.write(`[stackwright] ${line}\n`);
}

/** Outputs plus the serialized provider, as the init-failure path needs them. */
export function withProvider(outs: Props, inputs: Props): Props {
  return { ...outs, [PROVIDER_KEY]: inputs[PROVIDER_KEY] };
}

/** `a !== b`, treating undefined, null and "" alike (an omitted optional input). */
export function differs(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === null || v === "" ? undefined : v);
  return JSON.stringify(norm(a)) !== JSON.stringify(norm(b));
}

/** Names of `keys` whose values differ between old outputs and new inputs. */
export function changedKeys(olds: Props, news: Props, keys: readonly string[]): string[] {
  return keys.filter((k) => differs(olds[k], news[k]));
}

/** A wait bound in ms from a `timeout_seconds` input, or the client's default. */
export function timeoutMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000;
}
