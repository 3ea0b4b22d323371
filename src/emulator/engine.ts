import { isDeploymentInProgress, isFetchFinished, isTransferFinished } from "../api";
import { Access } from "./operations/access";
import { Deployments } from "./operations/deployments";
import { Fetches } from "./operations/fetches";
import { Locks } from "./operations/locks";
import { Records } from "./operations/records";
import { Snapshots } from "./operations/snapshots";
import type { Scheduler } from "./scheduler";
import type { Store } from "./store";

export type { Caller, EnvContext } from "./operations/access";

/**
 * The platform's rules, one part per resource, all sharing one access check (`access`) and one
 * store: every change goes through the store in one transaction.
 */
export class Engine {
  readonly access: Access;
  readonly deployments: Deployments;
  readonly locks: Locks;
  readonly snapshots: Snapshots;
  readonly fetches: Fetches;
  readonly records: Records;

  constructor(
    readonly store: Store,
    scheduler: Scheduler,
  ) {
    this.access = new Access(store);
    this.deployments = new Deployments(store, scheduler, this.access);
    this.locks = new Locks(store, this.access);
    this.snapshots = new Snapshots(store, scheduler, this.access);
    this.fetches = new Fetches(store, scheduler, this.access);
    this.records = new Records(store);
  }

  /** After a restart: pick up every unfinished deployment, transfer and fetch where it stopped. */
  resume(): void {
    for (const d of this.store.deployments.values()) {
      if (isDeploymentInProgress(d.state)) this.deployments.schedule(d.id);
    }
    for (const t of this.store.transfers.values()) {
      if (!isTransferFinished(t.status)) this.snapshots.schedule(t.id);
    }
    for (const f of this.store.fetches.values()) {
      if (!isFetchFinished(f.status)) this.fetches.schedule(f.id);
    }
  }
}
