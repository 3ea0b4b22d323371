import { z } from "zod";
import { readView } from "./read-view";
import { Id, StackRef, singleDocument } from "./common";

/** Environment usages the platform knows; `Production` changes defaults and permissions. */
export const ENVIRONMENT_USAGES = ["Production", "UAT", "Test"] as const;
export const EnvironmentUsage = z.enum(ENVIRONMENT_USAGES);
export type EnvironmentUsage = z.infer<typeof EnvironmentUsage>;

/** An environment as documented, type `environments`. */
export const DocumentedEnvironment = z.object({
  type: z.literal("environments"),
  id: Id,
  attributes: z.object({
    name: z.string(),
    url: z.string(),
    framework_version: z.string(),
    build_sha: z.string(),
    build_package: z.string().nullable(),
    maintenance_day: z.string(),
    maintenance_time: z.string(),
    maintenance_duration: z.string(),
    maintenance_tz: z.string(),
    usage: z.string(),
  }),
  relationships: z.object({
    stack: z.object({ data: StackRef }),
  }),
});
export type EnvironmentInput = z.input<typeof DocumentedEnvironment>;
/** An environment as a client reads it (the read view: every attribute optional and nullable). */
export const Environment = readView(DocumentedEnvironment);
export type Environment = z.infer<typeof Environment>;

/** Endpoint 4, GET /svc/project/{project_id}/environment/{environment_id}. */
export const EnvironmentDocument = singleDocument(DocumentedEnvironment);
export type EnvironmentDocument = z.infer<typeof EnvironmentDocument>;
export const EnvironmentReadDocument = readView(EnvironmentDocument);
