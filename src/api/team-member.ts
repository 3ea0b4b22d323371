import { z } from "zod";
import { Id, StackRef, listDocument } from "./common";

/** Roles the platform uses (docs/emulator.md, "Auth and visibility"); the wire `role` stays a free string. */
export const ROLES = ["Stack Manager", "Release Manager", "Deployer", "Team Member"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** A member of a stack's team, type `users`. */
export const TeamMember = z.object({
  type: z.literal("users"),
  id: Id,
  attributes: z.object({
    username: z.string(),
    first_name: z.string(),
    surname: z.string(),
    email: z.string(),
    role: z.string(),
  }),
  relationships: z.object({
    stack: z.object({ data: StackRef }),
  }),
});
export type TeamMember = z.infer<typeof TeamMember>;
export type TeamMemberInput = z.input<typeof TeamMember>;

/** Endpoint 22. */
export const TeamMemberListDocument = listDocument(TeamMember);
export type TeamMemberListDocument = z.infer<typeof TeamMemberListDocument>;
