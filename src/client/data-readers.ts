/**
 * The data sources by name: which client call answers each, with the arguments it takes. The
 * program's data sources (providers/data) read through this table, and the CLI re-reads a
 * recorded read (src/api/data-reads.ts) through it, so both make exactly the same call.
 */
import { z } from "zod";
import { DeploymentListQuery, type DeploymentListQueryInput } from "../api";
import type { StackwrightClient } from "./create-client";

/** One data source: its arguments' schema and the call that answers it. */
export interface DataReader<A extends z.ZodType, R = unknown> {
  readonly args: A;
  read(client: StackwrightClient, args: z.output<A>): Promise<R>;
}

function reader<A extends z.ZodType, R>(
  args: A,
  read: (client: StackwrightClient, args: z.output<A>) => Promise<R>,
): DataReader<A, R> {
  return { args, read };
}

const none = z.strictObject({});
const stack = z.strictObject({ stack: z.string() });
const environment = z.strictObject({ stack: z.string(), environment: z.string() });

// The filters as the caller gives them (the client parses them itself).
const listQuery = z.custom<DeploymentListQueryInput>((v) => DeploymentListQuery.safeParse(v).success);

export const DATA_READERS = {
  environment: reader(environment, (c, a) => c.environments.get(a.stack, a.environment)),
  configuration: reader(environment, (c, a) => c.environments.configuration(a.stack, a.environment)),
  domains: reader(environment, (c, a) => c.environments.domains(a.stack, a.environment)),
  whitelist: reader(environment, (c, a) => c.environments.whitelist(a.stack, a.environment)),
  modules: reader(environment.extend({ filters: z.array(z.string()).optional() }), (c, a) =>
    c.environments.modules(a.stack, a.environment, { filters: a.filters }),
  ),
  deployments: reader(environment.extend({ filters: listQuery.optional() }), (c, a) =>
    c.deployments.list(a.stack, a.environment, a.filters ?? {}),
  ),
  snapshots: reader(stack, (c, a) => c.snapshots.list(a.stack)),
  stacks: reader(none, (c) => c.stacks.list()),
  stack: reader(stack, (c, a) => c.stacks.get(a.stack)),
  team: reader(stack, (c, a) => c.stacks.team(a.stack)),
  whoami: reader(none, (c) => c.info.whoami()),
  manifestReleases: reader(none, (c) => c.info.manifestReleases()),
  record: reader(z.strictObject({ class_name: z.string(), record_id: z.string() }), (c, a) =>
    c.records.get(a.class_name, a.record_id),
  ),
} as const;

export type DataReadName = keyof typeof DATA_READERS;

const byName: ReadonlyMap<string, DataReader<z.ZodType>> = new Map(Object.entries(DATA_READERS));

/**
 * Makes the call a recorded read names, or returns undefined when the name is not a data source
 * or its arguments do not fit (a record written by another version): then nothing is proven.
 */
export function readRecorded(
  client: StackwrightClient,
  name: string,
  args: unknown,
): Promise<unknown> | undefined {
  const entry = byName.get(name);
  if (entry === undefined) return undefined;
  const parsed = entry.args.safeParse(args);
  return parsed.success ? entry.read(client, parsed.data) : undefined;
}
