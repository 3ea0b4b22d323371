/** Endpoints about the caller and the platform: 1 (meta) and 25 (manifest releases). */
import { ManifestReleaseListDocument, MetaDocument, type ManifestRelease } from "../api";
import type { CallOptions } from "./call-options";
import { decodeWith, pageOf } from "./decode";
import type { HttpCore } from "./http";

/** Who the caller is and the server's clock (endpoint 1). */
export interface WhoAmI {
  /** The caller's login. */
  whoami: string;
  /** Server time, `YYYY-MM-DD HH:MM:SS` in platform local time. */
  now: string;
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
      decodeWith(MetaDocument, (doc) => ({ whoami: doc.meta.whoami, now: doc.meta.now })),
      options,
    );
  }

  /** GET /svc/manifestreleases (all pages). */
  async manifestReleases(options: CallOptions = {}): Promise<ManifestRelease[]> {
    return this.#http.getAll("/svc/manifestreleases", pageOf(ManifestReleaseListDocument), options);
  }
}
