/** `getWhoAmI`: the caller's login (`GET /svc/meta`). */
import * as pulumi from "@pulumi/pulumi";
import type { WhoAmI } from "../../src/client";
import { DATA_READERS, memoised } from "./cache";

/** The caller's login and the server clock (memoised per run). */
export function fetchWhoAmI(): Promise<WhoAmI> {
  return memoised("whoami", {}, (c) => DATA_READERS.whoami.read(c, {}));
}

/** {@link fetchWhoAmI} as an Output. */
export function getWhoAmI(): pulumi.Output<WhoAmI> {
  return pulumi.output(fetchWhoAmI());
}
