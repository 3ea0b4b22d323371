/** Git fetch endpoints: 6 (queue a fetch) and 7 (view it). */
import { GitFetchReadDocument, type GitFetch } from "../api";
import type { CallOptions } from "./call-options";
import { dataOf } from "./decode";
import type { HttpCore } from "./http";
import { numericId, stackPath } from "./paths";

/** Repository fetches of a stack. */
export class Fetches {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  /**
   * POST /svc/project/{stack}/git/fetches. A create with no field to carry a marker, so it is
   * repeated only when the first attempt provably did nothing; an ambiguous failure surfaces as
   * OutcomeUnknownError (a second fetch is harmless, so a caller may simply call again).
   */
  async create(stack: string, options: CallOptions = {}): Promise<GitFetch> {
    return this.#http.call({
      method: "POST",
      path: `${stackPath(stack)}/git/fetches`,
      body: {},
      safety: "create",
      signal: options.signal,
      decode: dataOf(GitFetchReadDocument),
    });
  }

  /** GET /svc/project/{stack}/git/fetches/{id}. */
  async get(stack: string, fetchId: string | number, options: CallOptions = {}): Promise<GitFetch> {
    return this.#http.get(
      `${stackPath(stack)}/git/fetches/${numericId("fetchId", fetchId)}`,
      dataOf(GitFetchReadDocument),
      options,
    );
  }
}
