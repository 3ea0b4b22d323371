/** Endpoints of stacks (projects): 2 (list), 3 (view), 22 (team). */
import {
  StackReadDocument,
  StackReadListDocument,
  TeamMemberReadListDocument,
  type Stack,
  type TeamMember,
} from "../api";
import type { CallOptions } from "./call-options";
import { dataOf, pageOf } from "./decode";
import type { HttpCore } from "./http";
import { stackPath } from "./paths";

/** Stacks the caller may view. */
export class Stacks {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  /** GET /svc/projects: every stack the caller may view (all pages). */
  async list(options: CallOptions = {}): Promise<Stack[]> {
    return this.#http.getAll("/svc/projects", pageOf(StackReadListDocument), options);
  }

  /** GET /svc/project/{stack}. A stack the caller is not a member of answers 404 (NotFoundError). */
  async get(stack: string, options: CallOptions = {}): Promise<Stack> {
    return this.#http.get(stackPath(stack), dataOf(StackReadDocument), options);
  }

  /** GET /svc/project/{stack}/team (all pages). */
  async team(stack: string, options: CallOptions = {}): Promise<TeamMember[]> {
    return this.#http.getAll(`${stackPath(stack)}/team`, pageOf(TeamMemberReadListDocument), options);
  }
}
