/**
 * Facts: what the platform says about an environment or a stack, in the shape a person reads in
 * the stack outputs and a check compares against. Built here, from the API's documents, by pure
 * functions; the program reads the documents (memoised data sources) and passes them in.
 *
 * Configuration values are secrets: a fact carries the variable names and `pending_changes`,
 * never a value.
 */
import { z } from "zod";
import type {
  Configuration,
  Deployment,
  Domain,
  Environment,
  InstalledModule,
  ManifestRelease,
  Whitelist,
} from "../api";

/** Facts an environment can show in its outputs (`environments.<name>.outputs`). */
export const ENVIRONMENT_FACTS = [
  "deployment",
  "url",
  "domains",
  "framework",
  "modules",
  "configuration",
  "whitelist",
] as const;
export type EnvironmentFact = (typeof ENVIRONMENT_FACTS)[number];

/** Facts a stack can show in its outputs (top-level `outputs`). */
export const STACK_FACTS = ["manifest_release"] as const;
export type StackFact = (typeof STACK_FACTS)[number];

/** The API reads behind the facts: one request each per run, whoever asks. */
export type FactRead =
  | "environment"
  | "deployments"
  | "domains"
  | "modules"
  | "configuration"
  | "whitelist"
  | "manifest_releases";

/** Which reads each fact needs. */
export const FACT_READS: Readonly<Record<EnvironmentFact | StackFact, readonly FactRead[]>> = {
  deployment: ["environment", "deployments"],
  url: ["environment"],
  framework: ["environment"],
  domains: ["domains"],
  modules: ["modules"],
  configuration: ["configuration"],
  whitelist: ["whitelist"],
  manifest_release: ["manifest_releases"],
};

/** The build the environment runs. */
export const LiveDeploymentFact = z.object({
  /** Null when the platform does not say which build runs. */
  sha: z.string().nullable(),
  /**
   * The ref it was deployed from, where it is known: the package of a package deployment, the
   * `ref_name` the platform lists for the deployment that made the build (a hand-made one too),
   * or the ref of the deployment Stackwright made when that is what runs.
   */
  ref: z.string().nullable(),
  /** Title of the deployment that made the build, when the platform lists it. */
  title: z.string().nullable(),
  deployer: z.string().nullable(),
  /** When that deployment started (ISO 8601, UTC), when the platform lists it. */
  deployed_at: z.string().nullable(),
});
export type LiveDeploymentFact = z.infer<typeof LiveDeploymentFact>;

export const DomainFact = z.object({
  name: z.string(),
  primary: z.boolean(),
  ssl: z.boolean(),
  www: z.boolean(),
});
export type DomainFact = z.infer<typeof DomainFact>;

export const ConfigurationFact = z.object({
  /** Variable names, sorted. Values are secrets and never part of a fact. */
  names: z.array(z.string()),
  pending_changes: z.boolean(),
});
export type ConfigurationFact = z.infer<typeof ConfigurationFact>;

export const WhitelistFact = z.object({
  enabled: z.boolean(),
  entries: z.number().int(),
  pending_changes: z.boolean(),
});
export type WhitelistFact = z.infer<typeof WhitelistFact>;

export const ManifestReleaseFact = z.object({ label: z.string(), released: z.string() });
export type ManifestReleaseFact = z.infer<typeof ManifestReleaseFact>;

/** Every fact of one environment; each is present only when something asked for it. */
export const EnvironmentFacts = z.object({
  deployment: LiveDeploymentFact.optional(),
  url: z.string().optional(),
  /** Primary first, then by name. */
  domains: z.array(DomainFact).optional(),
  framework: z.string().optional(),
  /** Module name → installed version. */
  modules: z.record(z.string(), z.string()).optional(),
  configuration: ConfigurationFact.optional(),
  whitelist: WhitelistFact.optional(),
});
export type EnvironmentFacts = z.infer<typeof EnvironmentFacts>;

export const StackFacts = z.object({
  /** The newest infrastructure manifest release; null when the platform lists none. */
  manifest_release: ManifestReleaseFact.nullable().optional(),
});
export type StackFacts = z.infer<typeof StackFacts>;

function isoOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * The live build: the environment's `build_sha`, with the deployment that made it when the list
 * has it (the current build, else the newest completed deployment of that sha).
 * `managed` is the ref of the deployment Stackwright manages on the environment, if its sha is live.
 */
export function liveDeploymentFact(
  environment: Environment,
  deployments: readonly Deployment[],
  managed?: { sha: string; ref: string },
): LiveDeploymentFact {
  const sha = environment.attributes.build_sha ?? null;
  // A deployment without a sha (a package not built yet) never counts as the live build. List
  // items of the real platform may carry no dates: the higher id is the later one then.
  const completed = deployments
    .filter((d) => d.attributes.state === "Completed" && sha !== null && d.attributes.sha === sha)
    .sort(
      (a, b) =>
        (b.attributes.date_started_unix ?? 0) - (a.attributes.date_started_unix ?? 0) ||
        Number(b.id) - Number(a.id),
    );
  const made = completed.find((d) => d.attributes.is_current_build === true) ?? completed[0];
  // As the managed deployment's ref reads: `branch main`, `tag v1.4.0`.
  const refName = made?.attributes.ref_name;
  const refType = made?.attributes.ref_type;
  const named =
    typeof refName !== "string" || refName === ""
      ? null
      : typeof refType === "string" && refType !== ""
        ? `${refType} ${refName}`
        : refName;
  const ref =
    environment.attributes.build_package ??
    named ??
    (managed !== undefined && sha !== null && managed.sha === sha ? managed.ref : null);
  const started = made?.attributes.date_started_unix;
  return {
    sha,
    ref,
    title: made?.attributes.title ?? null,
    deployer: made?.attributes.deployer?.email ?? null,
    deployed_at: typeof started === "number" && started > 0 ? isoOf(started) : null,
  };
}

/** Domains, primary first, then by name. */
export function domainsFact(domains: readonly Domain[]): DomainFact[] {
  // A domain is its name (`id` is the name too); flags the platform leaves out read as false.
  return domains
    .map(({ id, attributes: { name, primary, ssl, www } }) => ({
      name: name ?? id,
      primary: primary === true,
      ssl: ssl === true,
      www: www === true,
    }))
    .sort(
      (a, b) => Number(b.primary) - Number(a.primary) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
}

/** Module name → version. */
export function modulesFact(modules: readonly InstalledModule[]): Record<string, string> {
  return Object.fromEntries(
    modules
      .flatMap((m) => {
        const { name, version } = m.attributes;
        // A module without a name cannot be listed; one without a version shows an empty one.
        return typeof name === "string" ? [[name, version ?? ""] as const] : [];
      })
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** Variable names and whether changes wait for a deployment; the values are dropped here. */
export function configurationFact(documents: readonly Configuration[]): ConfigurationFact {
  const names = new Set<string>();
  for (const document of documents)
    for (const name of Object.keys(document.attributes.configuration ?? {})) names.add(name);
  return {
    names: [...names].sort(),
    pending_changes: documents.some((document) => document.attributes.pending_changes === true),
  };
}

export function whitelistFact(whitelist: Whitelist): WhitelistFact {
  return {
    enabled: whitelist.attributes.enabled === true,
    entries: Object.keys(whitelist.attributes.items ?? {}).length,
    pending_changes: whitelist.attributes.pending_changes === true,
  };
}

/** The newest release by release date (the later label on a tie); null when there is none. */
export function newestManifestRelease(releases: readonly ManifestRelease[]): ManifestReleaseFact | null {
  // A release the platform lists without its label or date cannot be shown or ordered.
  const dated = releases.flatMap((r) => {
    const { sha, released_unix: released } = r.attributes;
    return typeof sha === "string" && typeof released === "number" ? [{ sha, released }] : [];
  });
  const newest = dated.sort(
    (a, b) => b.released - a.released || (b.sha < a.sha ? -1 : b.sha > a.sha ? 1 : 0),
  )[0];
  return newest === undefined ? null : { label: newest.sha, released: isoOf(newest.released) };
}
