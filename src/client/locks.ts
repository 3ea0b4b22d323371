/** Environment lock endpoints: 20 (lock) and 21 (unlock). */
import { EnvironmentLockReadDocument, LockRequest, type EnvironmentLock } from "../api";
import type { CallOptions } from "./call-options";
import { dataOf } from "./decode";
import type { HttpCore } from "./http";
import { environmentPath } from "./paths";
import { validateInput } from "./validate-input";

/** Locking prevents deployments and snapshots on an environment. */
export class Locks {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  #path(stack: string, environment: string): string {
    return `${environmentPath(stack, environment)}/lock`;
  }

  /**
   * POST .../lock. Treated as a create: there is no endpoint to read a lock back, so after an
   * ambiguous failure the client cannot tell whether it took effect and reports
   * OutcomeUnknownError; it is repeated only when the first attempt provably did nothing.
   */
  async lock(
    stack: string,
    environment: string,
    message?: string,
    options: CallOptions = {},
  ): Promise<EnvironmentLock> {
    const body = validateInput("body", LockRequest, message === undefined ? {} : { lock_message: message });
    return this.#http.call({
      method: "POST",
      path: this.#path(stack, environment),
      body,
      safety: "create",
      signal: options.signal,
      decode: dataOf(EnvironmentLockReadDocument),
    });
  }

  /** DELETE .../lock. Idempotent: repeated on transient failures. */
  async unlock(stack: string, environment: string, options: CallOptions = {}): Promise<void> {
    return this.#http.delete(this.#path(stack, environment), options);
  }
}
