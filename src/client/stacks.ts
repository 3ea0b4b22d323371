/** Endpoints of stacks (projects): 2 (list), 3 (view), 22 (team). */
import {
  StackDocument,
  StackListDocument,
  TeamMemberListDocument,
  type Stack,
  type TeamMember,
} from "../api";
import type { CallOptions } from "./call-options";
import { decodeWith, nextLink, type HttpCore } from "./http";
import { segment } from "./paths";

/** Stacks the caller may view. */
export class Stacks {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  /** GET /svc/projects: every stack the caller may view (all pages). */
  async list(options: CallOptions = {}): Promise<Stack[]> {
    return this.#http.list({
      method: "GET",
      path: "/svc/projects",
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(StackListDocument, (doc) => ({ items: doc.data, next: nextLink(doc.links) })),
    });
  }

  /** GET /svc/project/{stack}. A stack the caller is not a member of answers 404 (NotFoundError). */
  async get(stack: string, options: CallOptions = {}): Promise<Stack> {
    return this.#http.call({
      method: "GET",
      path: `/svc/project/${segment("stack", stack)}`,
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(StackDocument, (doc) => doc.data),
    });
  }

  /** GET /svc/project/{stack}/team (all pages). */
  async team(stack: string, options: CallOptions = {}): Promise<TeamMember[]> {
    return this.#http.list({
      method: "GET",
      path: `/svc/project/${segment("stack", stack)}/team`,
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(TeamMemberListDocument, (doc) => ({ items: doc.data, next: nextLink(doc.links) })),
    });
  }
}
