import { z } from "zod";
import { readView } from "./read-view";
import { Id, UnixSeconds, listDocument } from "./common";

/** An infrastructure manifest release, type `manifestreleases`. */
export const DocumentedManifestRelease = z.object({
  type: z.literal("manifestreleases"),
  id: Id,
  attributes: z.object({
    sha: z.string(),
    released_unix: UnixSeconds,
  }),
});
export type ManifestReleaseInput = z.input<typeof DocumentedManifestRelease>;
/** A manifest release as a client reads it. */
export const ManifestRelease = readView(DocumentedManifestRelease);
export type ManifestRelease = z.infer<typeof ManifestRelease>;

/** Endpoint 25. */
export const ManifestReleaseListDocument = listDocument(DocumentedManifestRelease);
export type ManifestReleaseListDocument = z.infer<typeof ManifestReleaseListDocument>;
export const ManifestReleaseReadListDocument = readView(ManifestReleaseListDocument);
