/**
 * The messages between a shared provider host (shared-host.ts) and the process that started it
 * (src/program/shared-provider.ts), over Node's IPC channel. The parent asks for one port per
 * engine run and closes it when the run ends; the host answers each request by its id.
 */
import { z } from "zod";

export const hostRequest = z.discriminatedUnion("kind", [
  /** Serve one engine run: its engine attaches to the port in the answer. */
  z.object({ kind: z.literal("open"), id: z.number().int(), project: z.string() }),
  /** The run ended: stop serving its port. */
  z.object({ kind: z.literal("close"), id: z.number().int() }),
]);
export type HostRequest = z.infer<typeof hostRequest>;

export const hostAnswer = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("opened"), id: z.number().int(), port: z.number().int().positive() }),
  z.object({ kind: z.literal("failed"), id: z.number().int(), message: z.string() }),
]);
export type HostAnswer = z.infer<typeof hostAnswer>;

/** The argument that starts main.ts as a shared host instead of one engine's plugin. */
export const SHARED_FLAG = "--shared";
