/**
 * Transfer logs. Transfers are made by `snapshots.create` and `snapshots.restore` and read with
 * `snapshots.transfer`; their log is a separate endpoint with the platform's own status words.
 */
import { TransferLog } from "../api";
import type { CallOptions } from "./call-options";
import { decodeWith } from "./decode";
import type { HttpCore } from "./http";
import { numericId, stackPath } from "./paths";

/** The log of a snapshot or restore transfer. */
export class Transfers {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  /** GET /svc/project/{stack}/snapshots/transfer/{id}/log: the status and the log text so far. */
  async log(stack: string, transferId: string | number, options: CallOptions = {}): Promise<TransferLog> {
    return this.#http.get(
      `${stackPath(stack)}/snapshots/transfer/${numericId("transferId", transferId)}/log`,
      decodeWith(TransferLog, (log) => log),
      options,
    );
  }
}
