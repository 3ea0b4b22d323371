import { z } from "zod";
import { readView } from "./read-view";
import { Id, ServerMeta } from "./common";

/** An installed module, type `module`. */
export const DocumentedInstalledModule = z.object({
  type: z.literal("module"),
  id: Id,
  attributes: z.object({
    name: z.string(),
    version: z.string(),
    source: z.object({ type: z.string(), url: z.string(), reference: z.string() }),
    require: z.record(z.string(), z.string()),
    type: z.string(),
  }),
});
export type InstalledModuleInput = z.input<typeof DocumentedInstalledModule>;
/** An installed module as a client reads it. */
export const InstalledModule = readView(DocumentedInstalledModule);
export type InstalledModule = z.infer<typeof InstalledModule>;

/** Endpoint 5, GET .../modules: the list with `meta` {server_time, status_code}. */
export const ModuleListDocument = z.object({
  data: z.array(DocumentedInstalledModule),
  meta: ServerMeta,
});
export type ModuleListDocument = z.infer<typeof ModuleListDocument>;
export type ModuleListDocumentInput = z.input<typeof ModuleListDocument>;
export const ModuleReadListDocument = readView(ModuleListDocument);

/** Query of endpoint 5: `filters` (module names); absent means all. */
export const ModuleListQuery = z.object({
  filters: z.array(z.string().min(1)).optional(),
});
export type ModuleListQuery = z.infer<typeof ModuleListQuery>;
