import type { FetchRecord } from "../model";
import type { Scheduler } from "../scheduler";
import type { Store } from "../store";
import { nowUnix } from "../time";
import { type Access, type Caller, inStack } from "./access";
import { isFetchFinished } from "../../api";

/** Git fetches: any member may ask the platform to fetch the stack's repository. */
export class Fetches {
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

  /** One worker step: n/a → Started → Complete. */
  advance(id: number): void {
    const f = this.store.fetches.get(id);
    if (f === undefined || isFetchFinished(f.status)) return;
    const next = f.status === "n/a" ? "Started" : "Complete";
    this.store.tx(() => this.store.saveFetch({ ...f, status: next }));
    if (next !== "Complete") this.schedule(id);
  }
}
