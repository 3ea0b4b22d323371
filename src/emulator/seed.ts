import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { DeploymentState, EnvironmentUsage, RefType, Role, SnapshotMode } from "../api";

const sha40 = z.string().regex(/^[0-9a-f]{40}$/, "expected a 40-character lowercase hex commit hash");
const name = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    "expected letters, digits, '.', '_' or '-' (nothing that alters a path)",
  );

const SeedUser = z.strictObject({
  email: z.string().email(),
  token: z.string().min(1),
  username: z.string().optional(),
  first_name: z.string().default(""),
  surname: z.string().default(""),
});

const SeedModule = z.strictObject({
  name: z.string().min(1),
  version: z.string(),
  source: z
    .strictObject({ type: z.string(), url: z.string(), reference: z.string() })
    .default({ type: "git", url: "", reference: "" }),
  require: z.record(z.string(), z.string()).default({}),
  type: z.string().default("library"),
});

const SeedDomain = z.strictObject({
  name: z.string().min(1),
  ssl: z.boolean().default(true),
  www: z.boolean().default(false),
  primary: z.boolean().default(false),
});

const SeedDeployment = z.strictObject({
  sha: sha40,
  state: DeploymentState.default("Completed"),
  ref_type: RefType.default("sha"),
  ref: z.string().optional(),
  title: z.string().default(""),
  summary: z.string().default(""),
  deployer: z.string().email(),
  created_unix: z.number().int().optional(),
});

const SeedEnvironment = z.strictObject({
  name,
  usage: EnvironmentUsage,
  url: z.string().default(""),
  framework_version: z.string().default("5.2.0"),
  build_sha: sha40,
  build_package: z.string().nullable().default(null),
  maintenance_day: z.string().default("Tuesday"),
  maintenance_time: z.string().default("02:00:00"),
  maintenance_duration: z.string().default("01:00:00"),
  maintenance_tz: z.string().default("Pacific/Auckland"),
  modules: z.array(SeedModule).default([]),
  domains: z.array(SeedDomain).default([]),
  configuration: z.record(z.string(), z.string()).default({}),
  whitelist: z
    .strictObject({
      enabled: z.boolean().default(false),
      items: z.record(z.string(), z.string()).default({}),
    })
    .default({ enabled: false, items: {} }),
  lock: z.strictObject({ message: z.string().default("") }).optional(),
  deployments: z.array(SeedDeployment).default([]),
});

const SeedSnapshot = z.strictObject({
  source: name,
  mode: SnapshotMode,
  notes: z.string().nullable().default(null),
  size: z.number().int().nonnegative().default(1048576),
  created_unix: z.number().int().optional(),
  is_backup: z.boolean().default(false),
  is_manual_upload: z.boolean().default(false),
});

const SeedStack = z.strictObject({
  name,
  title: z.string().default(""),
  repository_url: z.string().default(""),
  created_unix: z.number().int().default(1_700_000_000),
  members: z.array(z.strictObject({ email: z.string().email(), role: Role })).default([]),
  /** Branch and tag names → commit hashes; other refs resolve to a stable hash of their name. */
  refs: z.record(z.string(), sha40).default({}),
  environments: z.array(SeedEnvironment).min(1),
  snapshots: z.array(SeedSnapshot).default([]),
});

const SeedRecord = z.strictObject({
  class: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected a class name"),
  id: z.number().int().positive(),
  api_access: z.boolean().default(true),
  fields: z.record(z.string(), z.unknown()).default({}),
  /** Method names, or `{name, set}` where `set` overwrites fields when the method runs. */
  methods: z
    .array(
      z.union([
        z.string().min(1),
        z.strictObject({ name: z.string().min(1), set: z.record(z.string(), z.unknown()).default({}) }),
      ]),
    )
    .default([]),
});

/** The seed file (YAML or an object): the starting world of the emulator (docs/emulator.md, "Seed format"). */
export const Seed = z
  .strictObject({
    users: z.array(SeedUser).default([]),
    stacks: z.array(SeedStack).default([]),
    manifest_releases: z
      .array(z.strictObject({ id: z.string().optional(), sha: z.string(), released_unix: z.number().int() }))
      .default([]),
    records: z.array(SeedRecord).default([]),
  })
  .superRefine((seed, ctx) => {
    const emails = new Set(seed.users.map((u) => u.email.toLowerCase()));
    seed.users.forEach((u, i) => {
      if (seed.users.findIndex((o) => o.email.toLowerCase() === u.email.toLowerCase()) !== i) {
        ctx.addIssue({ code: "custom", path: ["users", i, "email"], message: `duplicate user '${u.email}'` });
      }
    });
    const stackNames = new Set<string>();
    seed.stacks.forEach((s, si) => {
      if (stackNames.has(s.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["stacks", si, "name"],
          message: `duplicate stack '${s.name}'`,
        });
      }
      stackNames.add(s.name);
      s.members.forEach((m, mi) => {
        if (!emails.has(m.email.toLowerCase())) {
          ctx.addIssue({
            code: "custom",
            path: ["stacks", si, "members", mi, "email"],
            message: `'${m.email}' is not one of the seed users`,
          });
        }
      });
      const envNames = new Set<string>();
      s.environments.forEach((e, ei) => {
        if (envNames.has(e.name)) {
          ctx.addIssue({
            code: "custom",
            path: ["stacks", si, "environments", ei, "name"],
            message: `duplicate environment '${e.name}'`,
          });
        }
        envNames.add(e.name);
        e.deployments.forEach((d, di) => {
          if (!emails.has(d.deployer.toLowerCase())) {
            ctx.addIssue({
              code: "custom",
              path: ["stacks", si, "environments", ei, "deployments", di, "deployer"],
              message: `'${d.deployer}' is not one of the seed users`,
            });
          }
        });
      });
      s.snapshots.forEach((snap, ni) => {
        if (!envNames.has(snap.source)) {
          ctx.addIssue({
            code: "custom",
            path: ["stacks", si, "snapshots", ni, "source"],
            message: `'${snap.source}' is not an environment of stack '${s.name}'`,
          });
        }
      });
    });
  });
export type Seed = z.infer<typeof Seed>;
export type SeedInput = z.input<typeof Seed>;
export type SeedStack = Seed["stacks"][number];
export type SeedEnvironment = SeedStack["environments"][number];
export type SeedUser = Seed["users"][number];
export type SeedRecord = Seed["records"][number];

/** Formats zod issues as `path: message` lines. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join(".") : "(root)"}: ${i.message}`)
    .join("\n");
}

/** Parses a seed given as an object, or reads it from a YAML/JSON file path. Errors name the path. */
export function loadSeed(seed: SeedInput | string): Seed {
  let raw: unknown = seed;
  let where = "seed";
  if (typeof seed === "string") {
    where = seed;
    let text: string;
    try {
      text = readFileSync(seed, "utf8");
    } catch (err) {
      throw new Error(`cannot read seed file ${seed}: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      raw = parseYaml(text);
    } catch (err) {
      throw new Error(
        `seed file ${seed} is not valid YAML: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  const parsed = Seed.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new Error(`invalid seed (${where}):\n${formatIssues(parsed.error)}`);
  }
  return parsed.data;
}
