/**
 * `GitFetch`: a fetch of the stack's repository, waited for (type
 * `pulumi-nodejs:dynamic/stackwright:GitFetch`).
 */
import * as pulumi from "@pulumi/pulumi";

export { check as checkGitFetch, diff as diffGitFetch } from "./runtime/git-fetch";

/* eslint-disable @typescript-eslint/no-require-imports */
/** The dynamic provider of GitFetch. */
export const gitFetchProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("@stackwright/runtime").v1.configure(req),
  check: (olds, news) => require("@stackwright/runtime").v1.gitFetch.check(olds, news),
  diff: (id, olds, news) => require("@stackwright/runtime").v1.gitFetch.diff(id, olds, news),
  create: (inputs) => require("@stackwright/runtime").v1.gitFetch.create(inputs),
  read: (id, props) => require("@stackwright/runtime").v1.gitFetch.read(id, props),
  update: (id, olds, news) => require("@stackwright/runtime").v1.gitFetch.update(id, olds, news),
  delete: (id, props) => require("@stackwright/runtime").v1.gitFetch.delete(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Inputs of {@link GitFetch}. */
export interface GitFetchArgs {
  /** Replaces when changed. */
  stack: pulumi.Input<string>;
  /** Change to fetch again. */
  trigger?: pulumi.Input<string> | undefined;
  timeout_seconds?: pulumi.Input<number> | undefined;
}

/** A repository fetch. */
export class GitFetch extends pulumi.dynamic.Resource {
  declare readonly fetch_id: pulumi.Output<string>;
  declare readonly status: pulumi.Output<string>;

  constructor(name: string, args: GitFetchArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      gitFetchProvider,
      name,
      { ...args, fetch_id: undefined, status: undefined },
      opts,
      "stackwright",
      "GitFetch",
    );
  }
}
