import { z } from "zod";
import { Id, StackRef, singleDocument } from "./common";

/** Environment usages the platform knows; `Production` changes defaults and permissions. */
export const ENVIRONMENT_USAGES = ["Production", "UAT", "Test"] as const;
export const EnvironmentUsage = z.enum(ENVIRONMENT_USAGES);
export type EnvironmentUsage = z.infer<typeof EnvironmentUsage>;

/** An environment, type `environments`. */
export const Environment = z.object({
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
export type Environment = z.infer<typeof Environment>;
export type EnvironmentInput = z.input<typeof Environment>;

/** Endpoint 4, GET /svc/project/{project_id}/environment/{environment_id}. */
export const EnvironmentDocument = singleDocument(Environment);
export type EnvironmentDocument = z.infer<typeof EnvironmentDocument>;
