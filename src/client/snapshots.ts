/**
 * Snapshot endpoints: 14 (list), 15 (create), 16 (view), 17 (restore), 18 (delete), 19 (transfer),
 * and the download of a complete snapshot.
 */
import {
  CreateSnapshotRequest,
  RestoreSnapshotRequest,
  SnapshotReadDocument,
  SnapshotReadListDocument,
  TransferReadDocument,
  type Snapshot,
  type SnapshotListItem,
  type SnapshotMode,
  type Transfer,
} from "../api";
import type { CallOptions } from "./call-options";
import { dataOf, decodeWith, pageOf } from "./decode";
import { downloadSnapshot, type DownloadOptions, type DownloadResult } from "./download";
import type { HttpCore } from "./http";
import { checkMarker, hasMarker, requireMarkerIn } from "./marker";
import { numericId, segment, stackPath } from "./paths";
import { validateInput } from "./validate-input";

/** Options of {@link Snapshots.create}. */
export interface CreateSnapshotOptions extends CallOptions {
  /**
   * A unique string the caller put in `notes`. With it, an ambiguous failure is followed by a
   * search for a snapshot carrying it (adopted instead of a second one); without it such a
   * failure throws OutcomeUnknownError.
   */
  marker?: string | undefined;
}

/**
 * Result of {@link Snapshots.create}: normally the transfer that makes the snapshot; after an
 * ambiguous failure it may instead be the snapshot an earlier attempt made (no transfer is
 * listable, so wait for it with `waitForSnapshot`).
 */
export type SnapshotCreation =
  | { kind: "transfer"; transfer: Transfer }
  | { kind: "adopted"; snapshot: Snapshot };

/** Options of {@link Snapshots.findByMarker}. */
export interface FindSnapshotOptions extends CallOptions {
  /** Only snapshots taken from this environment. */
  environment?: string | undefined;
  /** Only snapshots of this mode. */
  mode?: SnapshotMode | undefined;
}

/** Snapshots of a stack and the transfers that make and restore them. */
export class Snapshots {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  #path(stack: string, rest = ""): string {
    return `${stackPath(stack)}/snapshots${rest}`;
  }

  /** GET /svc/project/{stack}/snapshots (list form, including pending ones; all pages). */
  async list(stack: string, options: CallOptions = {}): Promise<SnapshotListItem[]> {
    return this.#http.getAll(this.#path(stack), pageOf(SnapshotReadListDocument), options);
  }

  /** GET /svc/project/{stack}/snapshots/{id} (full form, with `notes`). */
  async get(stack: string, snapshotId: string | number, options: CallOptions = {}): Promise<Snapshot> {
    return this.#http.get(
      this.#path(stack, `/${numericId("snapshotId", snapshotId)}`),
      dataOf(SnapshotReadDocument),
      options,
    );
  }

  /**
   * POST /svc/project/{stack}/snapshots → a create transfer. Never blindly repeated (see
   * {@link CreateSnapshotOptions.marker}).
   */
  async create(
    stack: string,
    input: CreateSnapshotRequest,
    options: CreateSnapshotOptions = {},
  ): Promise<SnapshotCreation> {
    const body = validateInput("input", CreateSnapshotRequest, input);
    segment("input.environment", body.environment);
    const marker = options.marker;
    if (marker !== undefined) requireMarkerIn(marker, { notes: body.notes });
    return this.#http.call<SnapshotCreation>({
      method: "POST",
      path: this.#path(stack),
      body,
      safety: "create",
      signal: options.signal,
      decode: decodeWith(TransferReadDocument, (doc) => ({ kind: "transfer", transfer: doc.data })),
      lookup:
        marker === undefined
          ? undefined
          : async () => {
              const found = await this.findByMarker(stack, marker, {
                environment: body.environment,
                mode: body.mode,
                signal: options.signal,
              });
              return found === undefined ? undefined : { kind: "adopted", snapshot: found };
            },
    });
  }

  /**
   * POST /svc/project/{stack}/snapshots/{id} → a restore transfer. The body has no field for a
   * marker and no endpoint lists transfers, so an ambiguous failure always surfaces as
   * OutcomeUnknownError: a restore overwrites data and must not run twice by accident.
   */
  async restore(
    stack: string,
    snapshotId: string | number,
    input: RestoreSnapshotRequest,
    options: CallOptions = {},
  ): Promise<Transfer> {
    const body = validateInput("input", RestoreSnapshotRequest, input);
    segment("input.environment", body.environment);
    return this.#http.call({
      method: "POST",
      path: this.#path(stack, `/${numericId("snapshotId", snapshotId)}`),
      body,
      safety: "create",
      signal: options.signal,
      decode: dataOf(TransferReadDocument),
    });
  }

  /** DELETE /svc/project/{stack}/snapshots/{id}. Irreversible; a 404 on a repeat counts as done. */
  async delete(stack: string, snapshotId: string | number, options: CallOptions = {}): Promise<void> {
    return this.#http.delete(this.#path(stack, `/${numericId("snapshotId", snapshotId)}`), options);
  }

  /**
   * Downloads a complete snapshot to `options.to`, streaming, with a size check, resume from an
   * earlier partial file (`Range`) and progress callbacks; see `download.ts`.
   */
  async download(
    stack: string,
    snapshotId: string | number,
    options: DownloadOptions,
  ): Promise<DownloadResult> {
    const snapshot = await this.get(stack, snapshotId, options);
    return downloadSnapshot(this.#http.context, snapshot, options);
  }

  /** GET /svc/project/{stack}/snapshots/transfer/{id}. */
  async transfer(stack: string, transferId: string | number, options: CallOptions = {}): Promise<Transfer> {
    return this.#http.get(
      this.#path(stack, `/transfer/${numericId("transferId", transferId)}`),
      dataOf(TransferReadDocument),
      options,
    );
  }

  /**
   * Finds the newest snapshot whose `notes` contain `marker`, or undefined. The list form has no
   * notes, so candidates (filtered by source environment and mode, newest first) are read one
   * by one, at most `maxMarkerProbes` of them.
   */
  async findByMarker(
    stack: string,
    marker: string,
    options: FindSnapshotOptions = {},
  ): Promise<Snapshot | undefined> {
    checkMarker(marker);
    if (options.environment !== undefined) segment("environment", options.environment);
    const all = await this.list(stack, options);
    const candidates = all
      .filter((s) => options.mode === undefined || s.attributes.mode === options.mode)
      .filter(
        (s) =>
          options.environment === undefined ||
          // A snapshot that does not name its source stays a candidate: its notes decide.
          (s.relationships?.source?.data.some((ref) => ref.id === options.environment) ?? true),
      )
      .sort((a, b) => Number(b.id) - Number(a.id))
      .slice(0, this.#http.settings.maxMarkerProbes);
    for (const candidate of candidates) {
      const full = await this.get(stack, candidate.id, options);
      if (hasMarker(full.attributes.notes, marker)) return full;
    }
    return undefined;
  }
}
