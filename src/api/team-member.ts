import { z } from "zod";
import { readView } from "./read-view";
import { Id, StackRef, listDocument } from "./common";

/** Roles the platform uses (docs/emulator.md, "Auth and visibility"); the wire `role` stays a free string. */
export const ROLES = ["Stack Manager", "Release Manager", "Deployer", "Team Member"] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** A member of a stack's team, type `users`. */
export const DocumentedTeamMember = z.object({
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
export type TeamMemberInput = z.input<typeof DocumentedTeamMember>;
/** A team member as a client reads it. */
export const TeamMember = readView(DocumentedTeamMember);
export type TeamMember = z.infer<typeof TeamMember>;

/** Endpoint 22. */
export const TeamMemberListDocument = listDocument(DocumentedTeamMember);
export type TeamMemberListDocument = z.infer<typeof TeamMemberListDocument>;
export const TeamMemberReadListDocument = readView(TeamMemberListDocument);
