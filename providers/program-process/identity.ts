/** The identity a resource's marker is derived from; computed in the program process. */
import * as pulumi from "@pulumi/pulumi";

/**
 * `<project>/<stack>/<Type>/<name>`: unique per resource of a Pulumi stack and the same on every
 * run, so a rerun after a crash derives the same marker as the interrupted run.
 */
export function markerSeed(type: string, name: string): string {
  return `${pulumi.getProject()}/${pulumi.getStack()}/${type}/${name}`;
}
