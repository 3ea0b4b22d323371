import { z } from "zod";
import {
  DateTimeText,
  EnvironmentRef,
  Id,
  SelfLinks,
  UnixSeconds,
  listDocument,
  singleDocument,
} from "./common";

/** A stack (project), type `stacks`. `id` is the name in lists; a single view may carry a number. */
export const Stack = z.object({
  type: z.literal("stacks"),
  id: Id,
  attributes: z.object({
    name: z.string(),
    title: z.string(),
    created: DateTimeText,
    created_unix: UnixSeconds,
    repository_url: z.string(),
  }),
  relationships: z.object({
    environments: z.object({ data: z.array(EnvironmentRef) }),
  }),
  links: SelfLinks,
});
export type Stack = z.infer<typeof Stack>;
export type StackInput = z.input<typeof Stack>;

/** Endpoint 3, GET /svc/project/{project_id}. */
export const StackDocument = singleDocument(Stack);
export type StackDocument = z.infer<typeof StackDocument>;

/** Endpoint 2, GET /svc/projects. */
export const StackListDocument = listDocument(Stack);
export type StackListDocument = z.infer<typeof StackListDocument>;
