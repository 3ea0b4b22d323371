import { z } from "zod";
import { DEFAULT_NOTIFY_EVENTS, NOTIFY_EVENT_NAMES, NotifyEventName, SinkKind } from "../api/notify";
import { type ConfigError, type PathSegment, compareErrors, formatPath } from "./errors";
import { issuesToFindings } from "./issues";
import { safeName } from "./names";
import { type Finding, type SourceFile, parseSourceFile, toConfigError } from "./source-file";
import { strictObject } from "./strict-object";

/**
 * Notification sinks (docs/stacks-config.md, "Notify"): a stack file's top-level `notify:` list,
 * and the target-wide defaults under `stackwright:notify` in `Pulumi.<target>.yaml`. A sink names
 * its URL and signing secret by environment variable, never by value, so no secret is in git.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const EnvName = z
  .string()
  .regex(
    ENV_NAME,
    "must be the NAME of an environment variable (letters, digits and _), not a URL or a secret",
  )
  .meta({ pattern: ENV_NAME.source });

/** One sink: where events go, which ones, for which environments. */
export const SinkSchema = strictObject({
  name: safeName("The sink's name, unique in its file (`stackwright notify test --sink NAME`)."),
  kind: SinkKind.meta({
    description: "webhook (signed JSON), slack (incoming webhook) or teams (Adaptive Card webhook).",
  }),
  url_env: EnvName.meta({
    description: "Name of the environment variable that holds the sink's URL (never the URL itself).",
  }),
  secret_env: EnvName.optional().meta({
    description: "webhook only, required there: name of the environment variable holding the signing secret.",
  }),
  events: z
    .array(NotifyEventName)
    .min(1, "must name at least one event")
    .default([...DEFAULT_NOTIFY_EVENTS])
    .meta({
      description: `Events to send (default: the failures: ${DEFAULT_NOTIFY_EVENTS.join(", ")}). One of: ${NOTIFY_EVENT_NAMES.join(", ")}.`,
    }),
  environments: z
    .array(safeName("An environment name."))
    .optional()
    .meta({ description: "Only events of these environments (default: all; run-wide events always pass)." }),
});
/** A sink as the CLI receives it (defaults applied). */
export type SinkConfig = z.output<typeof SinkSchema>;

/** `notify:` of a stack file, and `stackwright:notify` of a target's settings. */
export const NotifySchema = z
  .array(SinkSchema)
  .default([])
  .meta({ description: "Where to send notification events (docs/notifications.md)." });

/** The key of the target-wide sinks in `Pulumi.<target>.yaml`'s `config:`. */
export const TARGET_NOTIFY_KEY = "stackwright:notify";

/**
 * Rules of a `notify:` list beyond its shape, on the raw value: unique names, `secret_env` on
 * every webhook and on no other kind. Wrong shapes are left to the schema.
 */
export function checkNotify(base: readonly PathSegment[], raw: unknown): Finding[] {
  if (!Array.isArray(raw)) return [];
  const findings: Finding[] = [];
  const seen = new Map<string, number>();
  raw.forEach((sink: unknown, index) => {
    if (typeof sink !== "object" || sink === null || Array.isArray(sink)) return;
    const s = sink as Record<string, unknown>;
    const path = [...base, index];
    if (typeof s["name"] === "string") {
      const first = seen.get(s["name"]);
      if (first !== undefined) {
        findings.push({
          path: [...path, "name"],
          target: "value",
          message: `sink '${s["name"]}' is already declared at ${formatPath([...base, first])}; give each sink its own name`,
        });
      } else seen.set(s["name"], index);
    }
    if (s["kind"] === "webhook" && s["secret_env"] === undefined) {
      findings.push({
        path: [...path, "secret_env"],
        target: "key",
        message: "is required for a webhook sink: the name of the variable that holds its signing secret",
        at: { path: [...path, "kind"], target: "value" },
      });
    }
    if ((s["kind"] === "slack" || s["kind"] === "teams") && s["secret_env"] !== undefined) {
      findings.push({
        path: [...path, "secret_env"],
        target: "key",
        message: `is for webhook sinks only; a ${s["kind"]} webhook's URL is its secret, so remove it`,
      });
    }
  });
  return findings;
}

/** The target-wide sinks of one `Pulumi.<target>.yaml`, or every error in them. */
export interface TargetNotify {
  readonly file: string;
  readonly sinks: readonly SinkConfig[];
  readonly errors: readonly ConfigError[];
  /** Places a message about a node under `config.stackwright:notify` at its file:line:col. */
  locate(path: readonly PathSegment[], message: string): ConfigError;
}

/**
 * Reads `stackwright:notify` from a target's settings file (only that key is checked; the rest is
 * Pulumi's). A file without the key has no sinks.
 */
export function validateTargetNotify(file: string, text: string): TargetNotify {
  const { source, errors } = parseSourceFile(file, text);
  const base: PathSegment[] = ["config", TARGET_NOTIFY_KEY];
  const locate = (path: readonly PathSegment[], message: string) =>
    toConfigError(source, { path: [...base, ...path], target: "value", message });
  const raw = rawAt(source, base);
  if (source.broken || raw === undefined) return { file, sinks: [], errors, locate };
  const parsed = NotifySchema.safeParse(raw);
  const findings: Finding[] = [
    ...(parsed.success
      ? []
      : issuesToFindings(
          source,
          parsed.error.issues.map((issue) => ({ ...issue, path: [...base, ...issue.path] })),
        )),
    ...checkNotify(base, raw),
  ];
  errors.push(...findings.map((finding) => toConfigError(source, finding)));
  errors.sort(compareErrors);
  return { file, sinks: errors.length === 0 && parsed.success ? parsed.data : [], errors, locate };
}

function rawAt(source: SourceFile, path: readonly PathSegment[]): unknown {
  let current: unknown = source.value;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}

/**
 * The environment variables a sink needs that are not set (empty counts as unset), each with the
 * path of the key that names it: a warning at `validate`, an error at run time for a sink in use.
 */
export function unsetSinkVariables(
  sinks: readonly SinkConfig[],
  env: Readonly<Record<string, string | undefined>>,
): { index: number; key: "url_env" | "secret_env"; variable: string; sink: string }[] {
  const unset: { index: number; key: "url_env" | "secret_env"; variable: string; sink: string }[] = [];
  sinks.forEach((sink, index) => {
    for (const key of ["url_env", "secret_env"] as const) {
      const variable = sink[key];
      if (variable !== undefined && (env[variable] ?? "") === "") {
        unset.push({ index, key, variable, sink: sink.name });
      }
    }
  });
  return unset;
}
