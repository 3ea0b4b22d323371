/**
 * What the provider-level fuzz reads on the emulator's own records (never through the state it
 * checks), and the faults it scripts there.
 */
import fc from "fast-check";
import { createClient, type StackwrightClient } from "../../src/client";
import { findLeaks, seedUsers } from "../global-setup";
import { TEST_USERS, type EmulatorHooks, type FaultInput } from "../helpers/emulator";

/** One fault for one request, drawn from the list (`none` lets a request through). */
export type Fault =
  | { kind: "none" }
  | { kind: "429"; retryAfter: 0 | 1 }
  | { kind: "500" }
  | { kind: "503" }
  | { kind: "reset" }
  | { kind: "response-lost" }
  | { kind: "500-after-write" }
  | { kind: "latency"; ms: number };

export const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("429" as const),
      // Retry-After of 1 s is honoured for real: rarer, so the bounded sample stays fast.
      retryAfter: fc.constantFrom<0 | 1>(0, 0, 0, 1),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "500" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "503" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "reset" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "response-lost" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "500-after-write" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("latency" as const), ms: fc.integer({ min: 10, max: 300 }) }),
  },
);

/** The emulator fault for one request of the API (every path under /svc). */
export function faultInput(f: Fault): FaultInput {
  const base = { path: "/svc/**", count: 1 };
  switch (f.kind) {
    case "none":
      return { ...base, kind: "latency", latency_ms: 0 };
    case "429":
      return { ...base, kind: "status", status: 429, retry_after: f.retryAfter };
    case "500":
      return { ...base, kind: "status", status: 500 };
    case "503":
      return { ...base, kind: "status", status: 503 };
    case "reset":
      return { ...base, kind: "drop" };
    case "response-lost":
      return { ...base, kind: "drop", phase: "after" };
    case "500-after-write":
      return { ...base, kind: "status", status: 500, phase: "after" };
    case "latency":
      return { ...base, kind: "latency", latency_ms: f.ms };
  }
}

/** The platform as the properties see it. */
export interface Platform {
  /** Deployments of the environment by marker (any state but Deleted). */
  deploymentsByMarker(): Promise<Map<string, string[]>>;
  /** Snapshots of the stack by marker. */
  snapshotsByMarker(): Promise<Map<string, string[]>>;
  /** Restore transfers into the environment, by the snapshot id they restored. */
  restoresBySnapshot(): Promise<Map<string, number>>;
  lock(): Promise<{ locked: boolean; lock_message: string }>;
  close(): Promise<void>;
}

const MARKER = /\[stackwright (sw-[0-9a-f]+)\]/;

function push(map: Map<string, string[]>, key: string, value: string): void {
  map.set(key, [...(map.get(key) ?? []), value]);
}

export function platform(url: string, hooks: EmulatorHooks, stack: string, env: string): Platform {
  const client: StackwrightClient = createClient({ baseUrl: url, ...TEST_USERS.stackManager });
  return {
    async deploymentsByMarker() {
      const out = new Map<string, string[]>();
      for (const d of await client.deployments.list(stack, env)) {
        const m = MARKER.exec(d.attributes.summary ?? "");
        if (m?.[1] !== undefined && d.attributes.state !== "Deleted") push(out, m[1], d.id);
      }
      return out;
    },
    async snapshotsByMarker() {
      const out = new Map<string, string[]>();
      for (const s of await client.snapshots.list(stack)) {
        const full = await client.snapshots.get(stack, s.id);
        const m = MARKER.exec(full.attributes.notes ?? "");
        if (m?.[1] !== undefined) push(out, m[1], s.id);
      }
      return out;
    },
    async restoresBySnapshot() {
      const out = new Map<string, number>();
      for (const t of await hooks.transfers(stack)) {
        if (t.direction !== "restore" || t.env !== env || t.snapshot === null) continue;
        out.set(String(t.snapshot), (out.get(String(t.snapshot)) ?? 0) + 1);
      }
      return out;
    },
    lock: () => hooks.lock(stack, env),
    close: () => client.close(),
  };
}

/** Texts that hold a token of the seeds (plain or as a Basic header), as `secret in excerpt`. */
export function tokenLeaks(texts: readonly string[]): string[] {
  const records = texts.map((text) => ({ kind: "text" as const, file: "fuzz", test: "fuzz", text }));
  return findLeaks(records, seedUsers()).map((l) => `${l.secret} in ${JSON.stringify(l.excerpt)}`);
}
