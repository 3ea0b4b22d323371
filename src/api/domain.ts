import { z } from "zod";
import { EnvironmentRef, Id, listDocument } from "./common";

/** A domain of an environment, type `domains`; `id` is the domain name. */
export const Domain = z.object({
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
export type Domain = z.infer<typeof Domain>;
export type DomainInput = z.input<typeof Domain>;

/** Endpoint 23. */
export const DomainListDocument = listDocument(Domain);
export type DomainListDocument = z.infer<typeof DomainListDocument>;
