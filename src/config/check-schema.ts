/**
 * `checks:` of an environment and of a stack: assertions on what the platform says (its facts),
 * run by `preview` and `up` before any change. An error-check that fails stops the run; a
 * warning is shown. Ranges are npm semver ranges (`^5.2`, `>=5.0 <6`, `5.x`), checked here so
 * that `validate` refuses a bad one offline.
 */
// semver's functions one by one: its index loads all 47 of its modules, about 10 ms of every
// command's start (a fresh Node: 26 ms for the index, 10 for the functions used here).
import coerce from "semver/functions/coerce";
import parse from "semver/functions/parse";
import validRange from "semver/ranges/valid";
import type { SemVer } from "semver";
import { z } from "zod";
import { onValidValue, strictObject } from "./strict-object";

export const CHECK_SEVERITIES = ["error", "warning"] as const;
export type CheckSeverity = (typeof CHECK_SEVERITIES)[number];

const RANGE_MESSAGE = 'must be a version range in quotes, such as "^5.2", ">=5.0 <6" or "5.x"';

/** A semver range, as npm reads it. */
const VersionRange = z.string({ error: RANGE_MESSAGE }).check((ctx) => {
  if (ctx.value.trim() === "" || validRange(ctx.value) === null) {
    ctx.issues.push({ code: "custom", message: RANGE_MESSAGE, input: ctx.value });
  }
});

const LABEL_MESSAGE = 'must be a release label with a version in it, such as "2026.11.1"';

/** A version-like label (`2026.11.1`, `v3.2`): compared as a version after coercion. */
const ReleaseLabel = z.string({ error: LABEL_MESSAGE }).check((ctx) => {
  if (versionOfLabel(ctx.value) === null) {
    ctx.issues.push({ code: "custom", message: LABEL_MESSAGE, input: ctx.value });
  }
});

/** The version in a release label or a module version (`v5.2` → 5.2.0); null when there is none. */
export function versionOfLabel(label: string): SemVer | null {
  return parse(label, { loose: true }) ?? coerce(label, { includePrerelease: true });
}

const Severity = z.enum(CHECK_SEVERITIES).default("error").meta({
  description:
    "error (default): a failing check stops preview and up before any change. warning: shown only.",
});

const Names = (what: string) =>
  z.array(z.string().min(1, `must not be empty (a ${what})`)).min(1, `must list at least one ${what}`);

/** Requires at least one of the (all optional) keys of a check's settings. */
function someKey<T extends z.ZodObject>(schema: T, what: string): T {
  return schema.refine((value) => Object.values(value).some((v) => v !== undefined), {
    ...onValidValue,
    message: `names nothing to check; give at least one of: ${Object.keys(schema.shape).join(", ")} (${what})`,
  });
}

/** The kinds of environment check, with what each compares. */
export const ENVIRONMENT_CHECK_KINDS = [
  "modules",
  "framework",
  "domains",
  "whitelist",
  "configuration",
] as const;
export type EnvironmentCheckKind = (typeof ENVIRONMENT_CHECK_KINDS)[number];

const environmentCheckShape = {
  modules: z
    .record(z.string().min(1, "module name must not be empty"), VersionRange)
    .refine((value) => Object.keys(value).length > 0, { message: "must name at least one module" })
    .optional()
    .meta({
      description:
        'Installed module versions, module name → semver range, e.g. { silverstripe/framework: "^5.2" }. A module that is not installed fails.',
    }),
  framework: VersionRange.optional().meta({
    description: 'The framework version as a semver range, e.g. ">=5.0".',
  }),
  domains: someKey(
    strictObject({
      primary: z.string().min(1).optional().meta({ description: "Name of the primary domain." }),
      ssl: z.boolean().optional().meta({ description: "Every domain has SSL (true) or none has (false)." }),
      includes: Names("domain name")
        .optional()
        .meta({ description: "Domain names the environment must have." }),
    }),
    "domains",
  )
    .optional()
    .meta({ description: "The environment's domains." }),
  whitelist: someKey(
    strictObject({
      enabled: z.boolean().optional().meta({ description: "Whether the IP whitelist is on." }),
      max_entries: z
        .number()
        .int("must be a whole number")
        .min(0, "must be 0 or more")
        .optional()
        .meta({ description: "At most this many whitelist entries." }),
    }),
    "whitelist",
  )
    .optional()
    .meta({ description: "The IP whitelist." }),
  configuration: someKey(
    strictObject({
      pending_changes: z.boolean().optional().meta({
        description: "false: fail while configuration changes wait for a deployment.",
      }),
      has: Names("variable name").optional().meta({
        description: "Variable names that must be set (values are never read into the run's output).",
      }),
    }),
    "configuration",
  )
    .optional()
    .meta({ description: "Configuration variables (names only: values are secrets)." }),
  severity: Severity,
};

/** Exactly one kind per entry, so each entry is one assertion with one position. */
function oneKind<K extends string>(kinds: readonly K[]) {
  return (value: Partial<Record<K, unknown>>, ctx: z.core.$RefinementCtx) => {
    const given = kinds.filter((kind) => value[kind] !== undefined);
    if (given.length === 1) return;
    ctx.addIssue({
      code: "custom",
      message:
        given.length === 0
          ? `names no check; give one of: ${kinds.join(", ")}`
          : `holds ${given.length} checks (${given.join(", ")}); write one list entry per check so each has its own severity and position`,
    });
  };
}

/** One entry of `environments.<name>.checks`. */
export const EnvironmentCheckSchema = strictObject(environmentCheckShape)
  .superRefine(oneKind(ENVIRONMENT_CHECK_KINDS), onValidValue)
  .meta({ description: "One assertion on the environment's facts, with its severity." });
export type EnvironmentCheck = z.output<typeof EnvironmentCheckSchema>;

export const STACK_CHECK_KINDS = ["manifest_release"] as const;
export type StackCheckKind = (typeof STACK_CHECK_KINDS)[number];

/** One entry of the stack's `checks`. */
export const StackCheckSchema = strictObject({
  manifest_release: strictObject({
    at_least: ReleaseLabel.meta({
      description: 'The newest infrastructure manifest release is at least this label, e.g. "2026.11.1".',
    }),
  })
    .optional()
    .meta({ description: "The platform's newest infrastructure manifest release." }),
  severity: Severity,
})
  .superRefine(oneKind(STACK_CHECK_KINDS), onValidValue)
  .meta({ description: "One assertion on the stack's facts, with its severity." });
export type StackCheck = z.output<typeof StackCheckSchema>;
