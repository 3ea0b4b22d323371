/**
 * The program as a file, Pulumi.yaml's `main`: what the language host runs in a Node process of
 * its own for plain `pulumi preview|up -s <target>.<api stack>` in the project directory. The
 * `stackwright` command runs the same program in its own process instead (host.ts).
 */
import "../sqlite-warning";
import "../zod-locales";
import * as pulumi from "@pulumi/pulumi";
import { reportReadsAtExit } from "../../providers";
import { stackProgram } from "./stack-program";

export = () => {
  // The data sources this run reads, for the CLI's fingerprint shortcut (docs/state.md).
  reportReadsAtExit(pulumi.getStack());
  return stackProgram(pulumi.runtime.getRootDirectory());
};
