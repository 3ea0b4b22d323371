import { z } from "zod";
import { readView } from "./read-view";
import { EnvironmentRef, Id, listDocument } from "./common";

/** A domain of an environment, type `domains`; `id` is the domain name. */
export const DocumentedDomain = z.object({
  type: z.literal("domains"),
  id: Id,
  attributes: z.object({
    name: z.string(),
    ssl: z.boolean(),
    www: z.boolean(),
    primary: z.boolean(),
  }),
  relationships: z.object({
    environment: z.object({ data: EnvironmentRef }),
  }),
});
export type DomainInput = z.input<typeof DocumentedDomain>;
/** A domain as a client reads it. */
export const Domain = readView(DocumentedDomain);
export type Domain = z.infer<typeof Domain>;

/** Endpoint 23. */
export const DomainListDocument = listDocument(DocumentedDomain);
export type DomainListDocument = z.infer<typeof DomainListDocument>;
export const DomainReadListDocument = readView(DomainListDocument);
