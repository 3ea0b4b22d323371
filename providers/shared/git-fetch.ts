/** The contract of `GitFetch`: a fetch of the stack's repository, waited for. */
import { z } from "zod";
import { FetchStatus } from "../../src/api";
import { PathName, TimeoutSeconds, defineContract } from "./contract";

export const gitFetchContract = defineContract({
  type: "GitFetch",
  kind: "gitFetch",
  inputs: z.strictObject({
    /** Replaces when changed. */
    stack: PathName,
    /** Change to fetch again. */
    trigger: z.string().optional(),
    timeout_seconds: TimeoutSeconds.optional(),
  }),
  outputs: z.object({ fetch_id: z.string(), status: FetchStatus }),
  replaceKeys: ["stack", "trigger"],
});
