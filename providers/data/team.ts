/** `getTeam`: the members of a stack (endpoint 22). */
import * as pulumi from "@pulumi/pulumi";
import type { TeamMember } from "../../src/api";
import { memoised } from "./cache";
import type { StackArgs } from "./stacks";

/** Team members of the stack (memoised per run and stack). */
export function fetchTeam(args: StackArgs): Promise<TeamMember[]> {
  return memoised("team", args, (c) => c.stacks.team(args.stack));
}

/** {@link fetchTeam} as an Output. */
export function getTeam(args: StackArgs): pulumi.Output<TeamMember[]> {
  return pulumi.output(fetchTeam(args));
}
