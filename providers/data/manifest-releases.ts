/** `getManifestReleases`: infrastructure manifest releases (endpoint 25). */
import * as pulumi from "@pulumi/pulumi";
import type { ManifestRelease } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";

/** Manifest releases (memoised per run). */
export function fetchManifestReleases(): Promise<ManifestRelease[]> {
  return memoised("manifestReleases", {}, (c) => DATA_READERS.manifestReleases.read(c, {}));
}

/** {@link fetchManifestReleases} as an Output. */
export function getManifestReleases(): pulumi.Output<ManifestRelease[]> {
  return pulumi.output(fetchManifestReleases());
}
