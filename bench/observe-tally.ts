/**
 * The request tally of the observe bench (pure): what one run asked the emulator, from its request
 * log. Writes (anything but GET, HEAD and OPTIONS), reads, and per distinct read (method and path,
 * query included) how often it was made; each read is filed under the fact it asks for: the run's
 * own (`/svc/meta`, the stack list) or one environment's (its document, its deployments, one log).
 */

/** One request as the emulator logged it. */
export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
}

/** What a request asks for, with the stack and environment it is about (null for a run-level read). */
export interface Fact {
  /** `meta`, `stacks`, `environment`, `deployments`, `deployment log`, ... or `other`. */
  readonly kind: string;
  /** `stack/environment`, or null for a read that is not about one environment. */
  readonly environment: string | null;
}

export interface Tally {
  readonly total: number;
  readonly writes: number;
  readonly reads: number;
  /** Distinct reads (method and path). */
  readonly distinct: number;
  /** Each read made more than once, with how many times (none: at most one read per fact). */
  readonly duplicates: readonly { readonly request: string; readonly times: number }[];
  /** Reads per kind of fact, e.g. `{ environment: 300, deployments: 300, meta: 1, stacks: 1 }`. */
  readonly byKind: Readonly<Record<string, number>>;
  /** Environments read, and the most reads of one environment (all facts of it together). */
  readonly environments: number;
  readonly maxReadsPerEnvironment: number;
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The fact a request path asks for (the query does not change the fact, only the read). */
export function factOf(path: string): Fact {
  const bare = path.split("?")[0] ?? "";
  const parts = bare.split("/").filter((p) => p !== "");
  if (parts[0] !== "svc") return { kind: "other", environment: null };
  if (parts.length === 2 && parts[1] === "meta") return { kind: "meta", environment: null };
  if (parts.length === 2 && parts[1] === "projects") return { kind: "stacks", environment: null };
  if (
    parts[1] === "project" &&
    parts[3] === "environment" &&
    parts[2] !== undefined &&
    parts[4] !== undefined
  ) {
    const environment = `${decodeURIComponent(parts[2])}/${decodeURIComponent(parts[4])}`;
    const rest = parts.slice(5);
    if (rest.length === 0) return { kind: "environment", environment };
    if (rest.length === 1 && rest[0] === "deploys") return { kind: "deployments", environment };
    if (rest.length === 3 && rest[0] === "deploys" && rest[2] === "log") {
      return { kind: "deployment log", environment };
    }
    return { kind: `environment ${rest.filter((_, i) => i % 2 === 0).join(" ")}`, environment };
  }
  if (parts[1] === "project")
    return { kind: `stack ${parts.slice(3).join(" ") || "document"}`, environment: null };
  return { kind: "other", environment: null };
}

/** Tallies one run's requests (the emulator's own `/_emulator` hooks are not the run's and are left out). */
export function tally(log: readonly LoggedRequest[]): Tally {
  const requests = log.filter((r) => !r.path.startsWith("/_emulator"));
  const reads = requests.filter((r) => READ_METHODS.has(r.method.toUpperCase()));
  const times = new Map<string, number>();
  const byKind: Record<string, number> = {};
  const perEnvironment = new Map<string, number>();
  for (const r of reads) {
    const key = `${r.method.toUpperCase()} ${r.path}`;
    times.set(key, (times.get(key) ?? 0) + 1);
    const fact = factOf(r.path);
    byKind[fact.kind] = (byKind[fact.kind] ?? 0) + 1;
    if (fact.environment !== null) {
      perEnvironment.set(fact.environment, (perEnvironment.get(fact.environment) ?? 0) + 1);
    }
  }
  const duplicates = [...times]
    .filter(([, n]) => n > 1)
    .map(([request, n]) => ({ request, times: n }))
    .sort((a, b) => b.times - a.times || a.request.localeCompare(b.request));
  return {
    total: requests.length,
    writes: requests.length - reads.length,
    reads: reads.length,
    distinct: times.size,
    duplicates,
    byKind,
    environments: perEnvironment.size,
    maxReadsPerEnvironment: Math.max(0, ...perEnvironment.values()),
  };
}

/** The reads of a tally per kind, as one line (`1 meta, 1 stacks, 300 environment, 300 deployments`). */
export function kindsLine(t: Tally): string {
  return Object.entries(t.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(", ");
}

/** True when two tallies made the same number of reads of each kind (the floor repeats the run's reads). */
export function sameReads(a: Tally, b: Tally): boolean {
  const kinds = new Set([...Object.keys(a.byKind), ...Object.keys(b.byKind)]);
  return [...kinds].every((k) => (a.byKind[k] ?? 0) === (b.byKind[k] ?? 0));
}
