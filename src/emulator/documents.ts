import type {
  ApiVersion,
  ConfigurationInput,
  DeploymentInput,
  DomainInput,
  EnvironmentInput,
  EnvironmentLockInput,
  GitFetchInput,
  InstalledModuleInput,
  ManifestReleaseInput,
  SnapshotInput,
  SnapshotListItemInput,
  StackInput,
  TeamMemberInput,
  TransferInput,
  TransferLog,
  WhitelistInput,
} from "../api";
import { isDeploymentInProgress } from "../api";
import { createHash } from "node:crypto";
import type { DeploymentRecord, FetchRecord, SnapshotRecord, TransferRecord } from "./model";
import { envKey } from "./model";
import type { Store } from "./store";
import { DOWNLOADS, downloadKey } from "./archive";
import { transferLogStatus } from "./operations/log-lines";
import {
  type Answers,
  type DeploymentView,
  type Person,
  createExtras,
  legacyDates,
  platformExtras,
  platformShape,
} from "./deployment-fields";
import { formatDateTime } from "./time";
import { siteUrl } from "./sites";

/** Builds wire documents (the `z.input` of the src/api schemas) from the store's records. */
export class Documents {
  /** `base`: the absolute URL links start with, as the client called the server (no trailing slash). */
  constructor(
    private readonly store: Store,
    readonly base: string,
    /** `platform`: deployment answers in the shapes the real platform sends (docs/emulator.md). */
    readonly answers: Answers = "documented",
  ) {}

  /** A person of the stack as deployment documents show one. */
  person(stack: string, email: string): Person {
    const user = this.store.user(email);
    return {
      id: user?.id ?? 0,
      email: user?.email ?? email,
      role: this.store.role(stack, email) ?? "",
      name: user === undefined ? email : `${user.first_name} ${user.surname}`.trim(),
    };
  }

  /**
   * A deployment as an endpoint answers it: the documented document, reshaped as the real
   * platform sends it under `--answers platform` (list items reduced, create responses without
   * deployer and links, a numeric id in the single view). Create responses also carry the
   * platform's `decision`, `options` and `messages`.
   */
  deploymentAnswer(
    d: DeploymentRecord,
    opts: { version: ApiVersion; relationships?: boolean },
    view: DeploymentView,
  ): unknown {
    const doc = this.deployment(d, { ...opts, changes: view === "create" });
    if (view === "create") Object.assign(doc.attributes, createExtras(d));
    return this.answers === "platform" ? platformShape(doc, view) : doc;
  }

  stackUrl(stack: string): string {
    return `${this.base}/svc/project/${encodeURIComponent(stack)}`;
  }
  envUrl(stack: string, env: string): string {
    return `${this.stackUrl(stack)}/environment/${encodeURIComponent(env)}`;
  }
  stackRef(stack: string) {
    return { type: "stacks" as const, id: stack, links: { self: this.stackUrl(stack) } };
  }
  envRef(stack: string, env: string) {
    return { type: "environments" as const, id: env, links: { self: this.envUrl(stack, env) } };
  }

  /** A stack; the single view carries the stack's numeric id (a documented quirk). */
  stack(name: string, single: boolean): StackInput {
    const s = this.store.stacks.get(name);
    if (s === undefined) throw new Error(`no stack ${name}`);
    return {
      type: "stacks",
      id: single ? s.id : s.name,
      attributes: {
        name: s.name,
        title: s.title,
        created: formatDateTime(s.created_unix),
        created_unix: s.created_unix,
        repository_url: s.repository_url,
      },
      relationships: { environments: { data: s.environments.map((e) => this.envRef(s.name, e.name)) } },
      links: { self: this.stackUrl(s.name) },
    };
  }

  environment(stack: string, env: string): EnvironmentInput {
    const e = this.store.seedEnvs.get(envKey(stack, env));
    const live = this.store.envs.get(envKey(stack, env));
    if (e === undefined || live === undefined) throw new Error(`no environment ${stack}/${env}`);
    return {
      type: "environments",
      id: e.name,
      attributes: {
        name: e.name,
        url: siteUrl(e.url, this.base),
        framework_version: e.framework_version,
        build_sha: live.build_sha,
        build_package: live.build_package,
        maintenance_day: e.maintenance_day,
        maintenance_time: e.maintenance_time,
        maintenance_duration: e.maintenance_duration,
        maintenance_tz: e.maintenance_tz,
        usage: e.usage,
      },
      relationships: { stack: { data: this.stackRef(stack) } },
    };
  }

  deployment(
    d: DeploymentRecord,
    opts: { version: ApiVersion; changes?: boolean; relationships?: boolean },
  ): DeploymentInput {
    const live = this.store.envs.get(envKey(d.stack, d.env));
    const repo = this.store.stacks.get(d.stack)?.repository_url ?? "";
    const id = opts.version === "1.0" ? d.id : String(d.id);
    const doc: DeploymentInput = {
      type: "deployments",
      id,
      attributes: {
        id,
        date_created_unix: d.created,
        date_started_unix: d.started,
        date_requested_unix: d.requested,
        date_approved_unix: d.approved,
        date_updated_unix: d.updated,
        title: d.title,
        summary: d.summary,
        deployment_type: d.force_full ? "full" : "code-only",
        // The platform's estimate is a number of seconds, as text.
        deployment_estimate: d.force_full ? "300" : "120",
        // A package deployment has no commit until its package is built (null, as the platform).
        sha: d.sha,
        short_sha: d.sha === null ? null : d.sha.slice(0, 7),
        commit_subject: d.sha === null ? null : `Commit ${d.sha.slice(0, 7)}`,
        commit_message:
          d.sha === null
            ? null
            : `Commit ${d.sha.slice(0, 7)} of ${d.stack} (${d.ref_type}${d.ref === "" ? "" : ` ${d.ref}`})`,
        commit_url:
          d.sha === null ? repo.replace(/\.git$/, "") : `${repo.replace(/\.git$/, "")}/commit/${d.sha}`,
        deployer: this.person(d.stack, d.deployer),
        state: d.state,
        // The deployment becoming the build (queued or running) and the latest completed one.
        is_current_build:
          isDeploymentInProgress(d.state) || (d.state === "Completed" && live?.current_build === d.id),
      },
      links: { self: `${this.envUrl(d.stack, d.env)}/deploys/${d.id}` },
    };
    if (opts.changes === true) doc.attributes.changes = d.changes;
    Object.assign(
      doc.attributes,
      platformExtras(d, {
        refs: this.store.stacks.get(d.stack)?.refs ?? {},
        person: (email) => this.person(d.stack, email),
        envUrl: this.envUrl(d.stack, d.env),
      }),
    );
    if (opts.version === "1.0") Object.assign(doc.attributes, legacyDates(d));
    if (opts.relationships === true) {
      doc.relationships = {
        environment: { data: this.envRef(d.stack, d.env) },
        stack: { data: this.stackRef(d.stack) },
      };
    }
    return doc;
  }

  snapshotListItem(s: SnapshotRecord): SnapshotListItemInput {
    const ready = s.status === "complete";
    return {
      type: "snapshots",
      id: s.id,
      attributes: {
        created: formatDateTime(s.created),
        mode: s.mode,
        can_download: ready ? "true" : "false",
        can_delete: s.status === "pending" ? "false" : "true",
        size: ready ? String(s.size) : "",
        snapshot_status: s.status,
      },
      relationships: {
        source: { data: [this.envRef(s.stack, s.source)] },
        owner: { data: [this.envRef(s.stack, s.source)] },
      },
      links: { download_link: ready ? this.downloadLink(s) : "" },
    };
  }

  /** Where a complete snapshot's archive is served (see routes/downloads.ts). */
  downloadLink(s: SnapshotRecord): string {
    return `${this.base}${DOWNLOADS}/${s.id}/${downloadKey(this.store.seedHash, s)}/snapshot-${s.mode}.sspak`;
  }

  /** The list form plus the fields only the single view has. */
  snapshot(s: SnapshotRecord): SnapshotInput {
    const item = this.snapshotListItem(s);
    return {
      ...item,
      attributes: {
        ...item.attributes,
        is_backup: s.is_backup,
        is_manual_upload: s.is_manual_upload,
        notes: s.notes,
      },
    };
  }

  /** The deployment log endpoint: the deployment document plus its log lines so far. */
  /** The deployment log endpoint: the deployment (as its view answers it) and its lines so far. */
  deploymentLog(d: DeploymentRecord, version: ApiVersion): { data: unknown; message: string[] } {
    return { data: this.deploymentAnswer(d, { version }, "single"), message: [...d.log] };
  }

  /** The transfer log endpoint: the platform's status word and the log text so far. */
  transferLog(t: TransferRecord): TransferLog {
    return { status: transferLogStatus(t.status), content: t.log.join("\n") };
  }

  transfer(t: TransferRecord): TransferInput {
    return {
      type: "transfers",
      id: t.id,
      attributes: {
        status: t.status,
        direction: t.direction,
        mode: t.mode,
        ...(t.direction === "create"
          ? { include_resampled: t.include_resampled }
          : { skip_build: t.skip_build }),
      },
      relationships: {
        snapshot: {
          data:
            t.snapshot === null
              ? null
              : {
                  type: "snapshots",
                  id: t.snapshot,
                  links: { self: `${this.stackUrl(t.stack)}/snapshots/${t.snapshot}` },
                },
        },
        environment: { data: this.envRef(t.stack, t.env) },
      },
      links: { self: `${this.stackUrl(t.stack)}/snapshots/transfer/${t.id}` },
    };
  }

  fetch(f: FetchRecord): GitFetchInput {
    return {
      type: "fetches",
      id: f.id,
      attributes: { status: f.status },
      links: { self: `${this.stackUrl(f.stack)}/git/fetches/${f.id}` },
    };
  }

  lock(stack: string, env: string): EnvironmentLockInput {
    const live = this.store.envs.get(envKey(stack, env));
    return {
      type: "environmentlock",
      id: `${stack}:${env}`,
      attributes: { locked: live?.locked ?? false, lock_message: live?.lock_message ?? "" },
    };
  }

  team(stack: string): TeamMemberInput[] {
    const s = this.store.stacks.get(stack);
    return (s?.members ?? []).map((m) => {
      const u = this.store.user(m.email);
      return {
        type: "users",
        id: String(u?.id ?? 0),
        attributes: {
          username: u?.username ?? m.email.split("@")[0] ?? m.email,
          first_name: u?.first_name ?? "",
          surname: u?.surname ?? "",
          email: u?.email ?? m.email,
          role: m.role,
        },
        relationships: { stack: { data: this.stackRef(stack) } },
      };
    });
  }

  modules(stack: string, env: string, filters: readonly string[] | undefined): InstalledModuleInput[] {
    const e = this.store.seedEnvs.get(envKey(stack, env));
    return (e?.modules ?? [])
      .filter((m) => filters === undefined || filters.includes(m.name))
      .map((m) => ({
        type: "module",
        id: m.name,
        attributes: { name: m.name, version: m.version, source: m.source, require: m.require, type: m.type },
      }));
  }

  domains(stack: string, env: string): DomainInput[] {
    const e = this.store.seedEnvs.get(envKey(stack, env));
    return (e?.domains ?? []).map((d) => ({
      type: "domains",
      id: d.name,
      attributes: { name: d.name, ssl: d.ssl, www: d.www, primary: d.primary },
      relationships: { environment: { data: this.envRef(stack, env) } },
    }));
  }

  configuration(stack: string, env: string): ConfigurationInput[] {
    const e = this.store.seedEnvs.get(envKey(stack, env));
    return [
      {
        type: "configuration",
        id: hashId(`configuration:${stack}:${env}`),
        attributes: { pending_changes: false, configuration: { ...(e?.configuration ?? {}) } },
        relationships: { environment: { data: this.envRef(stack, env) } },
      },
    ];
  }

  whitelist(stack: string, env: string): WhitelistInput {
    const e = this.store.seedEnvs.get(envKey(stack, env));
    return {
      type: "whitelist",
      id: hashId(`whitelist:${stack}:${env}`),
      attributes: {
        enabled: e?.whitelist.enabled ?? false,
        pending_changes: false,
        items: { ...(e?.whitelist.items ?? {}) },
      },
      relationships: { environment: { data: this.envRef(stack, env) } },
      links: { self: `${this.envUrl(stack, env)}/whitelist` },
    };
  }

  manifestReleases(): ManifestReleaseInput[] {
    return this.store.seed.manifest_releases.map((r, i) => ({
      type: "manifestreleases",
      id: r.id ?? String(i + 1),
      attributes: { sha: r.sha, released_unix: r.released_unix },
    }));
  }
}

/** A stable hash-like identifier. */
export function hashId(text: string): string {
  return createHash("sha1").update(text).digest("hex").slice(0, 32);
}
