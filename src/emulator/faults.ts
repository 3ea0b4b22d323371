import { z } from "zod";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/** Body of POST /_emulator/faults (shared contract with the client's tests). */
export const FaultSpec = z
  .strictObject({
    method: z.enum(HTTP_METHODS).optional(),
    path: z
      .string()
      .startsWith("/", "must start with '/'")
      .refine((p) => !p.includes("?"), "matches the path only; leave out the query string"),
    kind: z.enum(["status", "latency", "drop"]),
    status: z
      .union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)])
      .optional(),
    retry_after: z.number().int().min(0).max(3600).optional(),
    latency_ms: z.number().int().min(0).max(60_000).optional(),
    count: z.number().int().min(1).max(10_000),
    phase: z.enum(["before", "after"]).default("before"),
  })
  .superRefine((f, ctx) => {
    if (f.kind === "status" && f.status === undefined) {
      ctx.addIssue({ code: "custom", path: ["status"], message: "is required when kind is 'status'" });
    }
    if (f.kind !== "status" && f.status !== undefined) {
      ctx.addIssue({ code: "custom", path: ["status"], message: "is only allowed when kind is 'status'" });
    }
    if (f.kind !== "status" && f.retry_after !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["retry_after"],
        message: "is only allowed when kind is 'status'",
      });
    }
    if (f.kind === "latency" && f.latency_ms === undefined) {
      ctx.addIssue({ code: "custom", path: ["latency_ms"], message: "is required when kind is 'latency'" });
    }
    if (f.kind !== "latency" && f.latency_ms !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["latency_ms"],
        message: "is only allowed when kind is 'latency'",
      });
    }
  });
export type FaultSpec = z.infer<typeof FaultSpec>;

export interface Fault extends FaultSpec {
  id: string;
  remaining: number;
  segments: string[];
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

/** Matches path segments against a pattern: `*` is one segment, `**` any number (even none). */
export function matchPath(pattern: readonly string[], path: readonly string[]): boolean {
  const [head, ...rest] = pattern;
  if (head === undefined) return path.length === 0;
  if (head === "**") {
    for (let i = 0; i <= path.length; i++) if (matchPath(rest, path.slice(i))) return true;
    return false;
  }
  const [first, ...others] = path;
  if (first === undefined) return false;
  return (head === "*" || head === first) && matchPath(rest, others);
}

/** Scripted faults, consumed one per matching request, in the order they were added. */
export class Faults {
  private faults: Fault[] = [];
  private seq = 0;

  add(spec: FaultSpec): Fault {
    const fault: Fault = {
      ...spec,
      id: `fault-${++this.seq}`,
      remaining: spec.count,
      segments: split(spec.path),
    };
    this.faults.push(fault);
    return fault;
  }

  /** Finds the first live fault for this request and consumes one use of it. */
  take(method: string, path: string): Fault | undefined {
    const segments = split(path);
    const fault = this.faults.find(
      (f) =>
        f.remaining > 0 && (f.method === undefined || f.method === method) && matchPath(f.segments, segments),
    );
    if (fault === undefined) return undefined;
    fault.remaining--;
    if (fault.remaining === 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }
}

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  status: number;
  at_ms: number;
}

/** The last requests (bounded), in arrival order; in-flight requests appear once answered. */
export class RequestLog {
  private entries: (LoggedRequest & { done: boolean })[] = [];
  private seq = 0;
  constructor(private readonly limit = 10_000) {}

  start(method: string, path: string): LoggedRequest & { done: boolean } {
    const entry = { seq: ++this.seq, method, path, status: 0, at_ms: Date.now(), done: false };
    this.entries.push(entry);
    // Trim in chunks so a long run does not pay an array shift on every request.
    if (this.entries.length > this.limit + this.limit / 10)
      this.entries.splice(0, this.entries.length - this.limit);
    return entry;
  }

  list(): LoggedRequest[] {
    return this.entries
      .filter((e) => e.done)
      .map(({ seq, method, path, status, at_ms }) => ({ seq, method, path, status, at_ms }));
  }

  clear(): void {
    this.entries = [];
    this.seq = 0;
  }
}
