import { z } from "zod";
import { EnvironmentRef, Id, listDocument } from "./common";

/** Configuration variables of an environment, type `configuration` (values are secrets). */
export const Configuration = z.object({
  type: z.literal("configuration"),
  id: Id,
  attributes: z.object({
    pending_changes: z.boolean(),
    configuration: z.record(z.string(), z.string()),
  }),
  relationships: z.object({
    environment: z.object({ data: EnvironmentRef }),
  }),
});
export type Configuration = z.infer<typeof Configuration>;
export type ConfigurationInput = z.input<typeof Configuration>;

/** Endpoint 24. */
export const ConfigurationListDocument = listDocument(Configuration);
export type ConfigurationListDocument = z.infer<typeof ConfigurationListDocument>;
