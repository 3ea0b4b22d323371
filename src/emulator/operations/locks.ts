import type { Store } from "../store";
import type { Access, Caller } from "./access";

/** Environment locks: set and cleared by a Stack or Release Manager. */
export class Locks {
  constructor(
    private readonly store: Store,
    private readonly access: Access,
  ) {}

  lock(caller: Caller, stack: string, env: string, message: string): void {
    const ctx = this.access.env(caller, stack, env, "lock");
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, locked: true, lock_message: message }));
  }

  unlock(caller: Caller, stack: string, env: string): void {
    const ctx = this.access.env(caller, stack, env, "lock");
    this.store.tx(() => this.store.saveEnv({ ...ctx.live, locked: false, lock_message: "" }));
  }
}
