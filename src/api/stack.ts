import { z } from "zod";
import { readView } from "./read-view";
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
export const DocumentedStack = z.object({
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
export type StackInput = z.input<typeof DocumentedStack>;
/** A stack as a client reads it. */
export const Stack = readView(DocumentedStack);
export type Stack = z.infer<typeof Stack>;

/** Endpoint 3, GET /svc/project/{project_id}. */
export const StackDocument = singleDocument(DocumentedStack);
export type StackDocument = z.infer<typeof StackDocument>;
export const StackReadDocument = readView(StackDocument);

/** Endpoint 2, GET /svc/projects. */
export const StackListDocument = listDocument(DocumentedStack);
export type StackListDocument = z.infer<typeof StackListDocument>;
export const StackReadListDocument = readView(StackListDocument);
