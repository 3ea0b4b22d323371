/** Endpoints about the caller and the platform: 1 (meta) and 25 (manifest releases). */
import { ManifestReleaseReadListDocument, MetaDocument, type ManifestRelease } from "../api";
import type { CallOptions } from "./call-options";
import { decodeWith, pageOf } from "./decode";
import type { HttpCore } from "./http";

/** Who the caller is and the server's clock (endpoint 1). */
export interface WhoAmI {
  /** The caller's login; null when the platform did not say. */
  whoami: string | null;
  /** Server time, `YYYY-MM-DD HH:MM:SS` in platform local time; null when the platform did not say. */
  now: string | null;
}

/** Platform-wide reads. */
export class Info {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  /** GET /svc/meta: the caller's login; a cheap credentials check. */
  async whoami(options: CallOptions = {}): Promise<WhoAmI> {
    return this.#http.get(
      "/svc/meta",
      decodeWith(MetaDocument, (doc) => ({ whoami: doc.meta?.whoami ?? null, now: doc.meta?.now ?? null })),
      options,
    );
  }

  /** GET /svc/manifestreleases (all pages). */
  async manifestReleases(options: CallOptions = {}): Promise<ManifestRelease[]> {
    return this.#http.getAll("/svc/manifestreleases", pageOf(ManifestReleaseReadListDocument), options);
  }
}
