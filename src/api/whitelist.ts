import { z } from "zod";
import { readView } from "./read-view";
import { EnvironmentRef, Id, SelfLinks, ServerMeta } from "./common";

/** The IP whitelist of an environment, type `whitelist`. */
export const DocumentedWhitelist = z.object({
  type: z.literal("whitelist"),
  id: Id,
  attributes: z.object({
    enabled: z.boolean(),
    pending_changes: z.boolean(),
    /** IP address → label. */
    items: z.record(z.string(), z.string()),
  }),
  relationships: z.object({
    environment: z.object({ data: EnvironmentRef }),
  }),
  links: SelfLinks,
});
export type WhitelistInput = z.input<typeof DocumentedWhitelist>;
/** The whitelist as a client reads it. */
export const Whitelist = readView(DocumentedWhitelist);
export type Whitelist = z.infer<typeof Whitelist>;

/** Endpoint 26: a single object with `meta` {server_time, status_code}. */
export const WhitelistDocument = z.object({
  data: DocumentedWhitelist,
  meta: ServerMeta,
});
export type WhitelistDocument = z.infer<typeof WhitelistDocument>;
export type WhitelistDocumentInput = z.input<typeof WhitelistDocument>;
export const WhitelistReadDocument = readView(WhitelistDocument);
