import { z } from "zod";
import { readView } from "./read-view";
import { EnvironmentRef, Id, listDocument } from "./common";

/** Configuration variables of an environment, type `configuration` (values are secrets). */
export const DocumentedConfiguration = z.object({
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
export type ConfigurationInput = z.input<typeof DocumentedConfiguration>;
/** Configuration as a client reads it. */
export const Configuration = readView(DocumentedConfiguration);
export type Configuration = z.infer<typeof Configuration>;

/** Endpoint 24. */
export const ConfigurationListDocument = listDocument(DocumentedConfiguration);
export type ConfigurationListDocument = z.infer<typeof ConfigurationListDocument>;
export const ConfigurationReadListDocument = readView(ConfigurationListDocument);
