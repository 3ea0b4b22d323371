import { HttpError } from "../errors";
import type { FetchRecord } from "../model";
import type { Scheduler } from "../scheduler";
import type { Store } from "../store";
import { nowUnix } from "../time";
import { type Access, type Caller, inStack } from "./access";
import { type FetchStatus, isFetchFinished } from "../../api";

/** Git fetches: every member may ask the platform to fetch the stack's repository. */
export class Fetches {
  /** Stacks whose next fetch fails (test hook; not kept on disk). */
  private readonly failNext = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly access: Access,
  ) {}

  create(caller: Caller, stack: string): FetchRecord {
    this.access.stack(caller, stack);
    const f = this.store.tx(() => {
      const fetch: FetchRecord = { id: this.store.nextId("fetch"), stack, status: "n/a", created: nowUnix() };
      this.store.saveFetch(fetch);
      return fetch;
    });
    this.schedule(f.id);
    return f;
  }

  in(stack: string, id: number): FetchRecord {
    return inStack(this.store.fetches, "Fetch", stack, id);
  }

  schedule(id: number): void {
    this.scheduler.step(() => this.advance(id));
  }

  /** The stack's next fetch ends Failed (test hook). */
  scriptNextFailure(stack: string): void {
    if (!this.store.stacks.has(stack)) throw new HttpError(404, `Stack '${stack}' not found`);
    this.failNext.add(stack);
  }

  /** Forgets scripted failures (the reset hook). */
  clearScripts(): void {
    this.failNext.clear();
  }

  /** One worker step, in the platform's words: n/a → Queued → Running → Complete (or Failed). */
  advance(id: number): void {
    const f = this.store.fetches.get(id);
    if (f === undefined || isFetchFinished(f.status)) return;
    let next: FetchStatus = "Queued";
    if (f.status === "Queued") next = "Running";
    else if (f.status === "Running" || f.status === "Started") {
      next = this.failNext.delete(f.stack) ? "Failed" : "Complete";
    }
    this.store.tx(() => this.store.saveFetch({ ...f, status: next }));
    if (!isFetchFinished(next)) this.schedule(id);
  }
}
