import { z } from "zod";
import { Id, UnixSeconds, listDocument } from "./common";

/** An infrastructure manifest release, type `manifestreleases`. */
export const ManifestRelease = z.object({
  type: z.literal("manifestreleases"),
  id: Id,
  attributes: z.object({
    sha: z.string(),
    released_unix: UnixSeconds,
  }),
});
export type ManifestRelease = z.infer<typeof ManifestRelease>;
export type ManifestReleaseInput = z.input<typeof ManifestRelease>;

/** Endpoint 25. */
export const ManifestReleaseListDocument = listDocument(ManifestRelease);
export type ManifestReleaseListDocument = z.infer<typeof ManifestReleaseListDocument>;
