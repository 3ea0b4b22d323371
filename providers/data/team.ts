/** `getTeam`: the members of a stack (endpoint 22). */
import * as pulumi from "@pulumi/pulumi";
import type { TeamMember } from "../../src/api";
import { DATA_READERS, memoised } from "./cache";
import type { StackArgs } from "./stacks";

/** Team members of the stack (memoised per run and stack). */
export function fetchTeam(args: StackArgs): Promise<TeamMember[]> {
  return memoised("team", args, (c) => DATA_READERS.team.read(c, args));
}

/** {@link fetchTeam} as an Output. */
export function getTeam(args: StackArgs): pulumi.Output<TeamMember[]> {
  return pulumi.output(fetchTeam(args));
}
