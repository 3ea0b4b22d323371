import { z } from "zod";
import { readView } from "./read-view";
import { Id, SelfLinks, singleDocument } from "./common";

/**
 * Statuses of a git fetch: `n/a` right after queueing, then the platform's `Queued` and `Running`,
 * then Complete or Failed (`Started` is an older word for Running, still accepted).
 */
export const FETCH_STATUSES = ["n/a", "Queued", "Started", "Running", "Complete", "Failed"] as const;
export const FetchStatus = z.enum(FETCH_STATUSES);
export type FetchStatus = z.infer<typeof FetchStatus>;
/** Statuses after which a fetch no longer changes. */
export const FINISHED_FETCH_STATUSES = ["Complete", "Failed"] as const satisfies readonly FetchStatus[];
/** True when a fetch status is terminal. */
export function isFetchFinished(status: FetchStatus): boolean {
  const finished: readonly FetchStatus[] = FINISHED_FETCH_STATUSES;
  return finished.includes(status);
}

/** A git fetch, type `fetches` (numeric id on the wire), as documented. */
export const DocumentedGitFetch = z.object({
  type: z.literal("fetches"),
  id: Id,
  attributes: z.object({ status: FetchStatus }),
  links: SelfLinks,
});
export type GitFetchInput = z.input<typeof DocumentedGitFetch>;
/** A git fetch as a client reads it. */
export const GitFetch = readView(DocumentedGitFetch);
export type GitFetch = z.infer<typeof GitFetch>;

/** Endpoints 6 and 7. */
export const GitFetchDocument = singleDocument(DocumentedGitFetch);
export type GitFetchDocument = z.infer<typeof GitFetchDocument>;
export const GitFetchReadDocument = readView(GitFetchDocument);

/** Body of endpoint 6 is not shown in the spec: an empty object (or no body) is accepted. */
export const CreateFetchRequest = z.strictObject({});
export type CreateFetchRequest = z.infer<typeof CreateFetchRequest>;
