/**
 * What a one-shot operation (a git fetch, a snapshot restore) does once it exists: a read follows
 * its status and lets the state forget one the platform no longer knows; an update only moves
 * the wait bound, with no request; a delete only forgets it, since nothing can undo it.
 */
import { ApiError, ErrorCode, type StackwrightClient } from "../../src/client";
import type { Props } from "./common";
import { wrap } from "./errors";
import { withClient } from "./settings";

export interface OneShot {
  read(id: string, props: Props): Promise<{ id: string; props: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
  remove(): Promise<void>;
}

/**
 * @param describe names the operation in errors, e.g. `Git fetch 900 of acme-web`
 * @param status reads the operation's current status
 */
export function oneShot(
  describe: (id: string, stack: string) => string,
  status: (client: StackwrightClient, stack: string, id: string) => Promise<string>,
): OneShot {
  return {
    read(id, props) {
      // Not a platform id (an operation whose outcome was never known): nothing to read.
      if (!/^\d+$/.test(id)) return Promise.resolve({ id, props });
      const stack = String(props["stack"]);
      return withClient(async (client) => {
        try {
          return { id, props: { ...props, status: await status(client, stack, id) } };
        } catch (error) {
          if (ApiError.isInstance(error) && error.code === ErrorCode.NotFound) return { id: "", props: {} };
          throw wrap(`${describe(id, stack)} could not be read`, error);
        }
      });
    },
    update(_id, olds, news) {
      return Promise.resolve({ outs: { ...olds, timeout_seconds: news["timeout_seconds"] } });
    },
    remove() {
      return Promise.resolve();
    },
  };
}
