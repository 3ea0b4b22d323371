/**
 * Deployment endpoints: 8 (list), 9 (create), 10 (view), 11 (delete), 12 (start), 13 (invalidate),
 * and the deployment log.
 */
import {
  CreateDeploymentRequest,
  DeploymentReadDocument,
  DeploymentIdRequest,
  DeploymentReadListDocument,
  DeploymentListQuery,
  DeploymentReadLogDocument,
  type Deployment,
  type DeploymentListQueryInput,
  type DeploymentState,
} from "../api";
import type { CallOptions } from "./call-options";
import { dataOf, decodeWith, pageOf } from "./decode";
import type { HttpCore } from "./http";
import { checkMarker, hasMarker, requireMarkerIn } from "./marker";
import { needAttributes, rememberOrigin } from "./needs";
import { environmentPath, numericId } from "./paths";
import { validateInput } from "./validate-input";

/** Options of {@link Deployments.create}. */
export interface CreateDeploymentOptions extends CallOptions {
  /**
   * A unique string the caller put in `title` or `summary`. With it, an ambiguous failure (reset
   * after send, timeout, 502/504) is followed by a search for the marker, and the create is
   * repeated only when no deployment carries it. Without it such a failure throws
   * OutcomeUnknownError.
   */
  marker?: string | undefined;
  /**
   * Which deployment carrying the marker counts as this create's (default: the newest). A marker
   * that is the same for every run of the same desired state also marks older, finished
   * deployments of it; the caller says which of those it may claim.
   */
  accept?: ((d: Deployment) => boolean) | undefined;
}

/** Input of {@link Deployments.create}: the body of endpoint 9. */
export type CreateDeploymentInput = CreateDeploymentRequest;

/** A deployment with its log: the lines so far, all of them once it has finished. */
export interface DeploymentLog {
  deployment: Deployment;
  lines: string[];
}

/** States after which `start` has visibly taken effect. */
const STARTED_STATES: readonly DeploymentState[] = ["Queued", "Deploying", "Aborting", "Completed", "Failed"];

/** Deployments of an environment. */
export class Deployments {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  #path(stack: string, environment: string, rest = ""): string {
    return `${environmentPath(stack, environment)}/deploys${rest}`;
  }

  /** GET .../deploys with the optional filters of endpoint 8 (all pages). */
  async list(
    stack: string,
    environment: string,
    filters: DeploymentListQueryInput = {},
    options: CallOptions = {},
  ): Promise<Deployment[]> {
    const query = validateInput("filters", DeploymentListQuery, filters);
    return this.#http.getAll(
      this.#path(stack, environment),
      pageOf(DeploymentReadListDocument),
      options,
      query,
    );
  }

  /** GET .../deploys/{id}. */
  async get(
    stack: string,
    environment: string,
    id: string | number,
    options: CallOptions = {},
  ): Promise<Deployment> {
    return this.#http.get(
      this.#path(stack, environment, `/${numericId("id", id)}`),
      dataOf(DeploymentReadDocument),
      options,
    );
  }

  /**
   * POST .../deploys. Never blindly repeated: repeated at once only when the first attempt
   * provably did nothing (connection refused, 429, 503); after an ambiguous failure only with a
   * `marker`, and only after a search for it found nothing. The result may therefore be an
   * adopted deployment (from the list, so without `changes`).
   */
  async create(
    stack: string,
    environment: string,
    input: CreateDeploymentInput,
    options: CreateDeploymentOptions = {},
  ): Promise<Deployment> {
    const body = validateInput("input", CreateDeploymentRequest, input);
    const marker = options.marker;
    if (marker !== undefined) requireMarkerIn(marker, { title: body.title, summary: body.summary });
    const path = this.#path(stack, environment);
    return this.#http.call({
      method: "POST",
      path,
      body,
      safety: "create",
      signal: options.signal,
      decode: dataOf(DeploymentReadDocument),
      lookup:
        marker === undefined
          ? undefined
          : async () => {
              const found = await this.findByMarker(stack, environment, marker, { signal: options.signal });
              return found !== undefined && (options.accept?.(found) ?? true) ? found : undefined;
            },
    });
  }

  /** GET .../deploys/log/{id}: the deployment and its log lines so far. */
  async log(
    stack: string,
    environment: string,
    id: string | number,
    options: CallOptions = {},
  ): Promise<DeploymentLog> {
    return this.#http.get(
      this.#path(stack, environment, `/log/${numericId("id", id)}`),
      (body, ctx) =>
        decodeWith(DeploymentReadLogDocument, (doc) => {
          rememberOrigin(doc.data, ctx, "$.data");
          return { deployment: doc.data, lines: doc.message ?? [] };
        })(body, ctx),
      options,
    );
  }

  /** DELETE .../deploys/{id}. Irreversible; a 404 on a repeat after an ambiguous attempt counts as done. */
  async delete(
    stack: string,
    environment: string,
    id: string | number,
    options: CallOptions = {},
  ): Promise<void> {
    return this.#http.delete(this.#path(stack, environment, `/${numericId("id", id)}`), options);
  }

  /**
   * POST .../deploys/start for an Approved deployment. After an ambiguous failure the client
   * reads the deployment: Queued or later means the start happened (that deployment is
   * returned); still Approved means it did not, and the start is repeated.
   */
  async start(
    stack: string,
    environment: string,
    id: string | number,
    options: CallOptions = {},
  ): Promise<Deployment> {
    const numeric = numericId("id", id);
    return this.#transition(stack, environment, numeric, "start", options, (state) =>
      STARTED_STATES.includes(state),
    );
  }

  /**
   * POST .../deploys/invalidate for a Submitted or Approved deployment. After an ambiguous
   * failure the client reads the deployment and returns it when it is already Invalid.
   */
  async invalidate(
    stack: string,
    environment: string,
    id: string | number,
    options: CallOptions = {},
  ): Promise<Deployment> {
    const numeric = numericId("id", id);
    return this.#transition(
      stack,
      environment,
      numeric,
      "invalidate",
      options,
      (state) => state === "Invalid",
    );
  }

  #transition(
    stack: string,
    environment: string,
    id: string,
    action: "start" | "invalidate",
    options: CallOptions,
    happened: (state: DeploymentState) => boolean,
  ): Promise<Deployment> {
    return this.#http.call({
      method: "POST",
      path: this.#path(stack, environment, `/${action}`),
      body: validateInput("id", DeploymentIdRequest, { id: Number(id) }),
      safety: "create",
      signal: options.signal,
      decode: dataOf(DeploymentReadDocument),
      lookup: async () => {
        const current = needAttributes(
          await this.get(stack, environment, id, options),
          ["state"],
          `cannot tell whether the ${action} of deployment ${id} on ${stack}/${environment} happened`,
        );
        return happened(current.attributes.state) ? current : undefined;
      },
    });
  }

  /**
   * Finds the newest deployment of the environment whose title or summary contains `marker`,
   * or undefined. A list item without `is_current_build` or links (the platform's reduced list
   * shape) is read again in the single view. Used by `create` after an ambiguous failure and by providers to adopt their
   * own deployment after a crash.
   */
  async findByMarker(
    stack: string,
    environment: string,
    marker: string,
    options: CallOptions = {},
  ): Promise<Deployment | undefined> {
    checkMarker(marker);
    const all = await this.list(stack, environment, {}, options);
    let best: Deployment | undefined;
    for (const d of all) {
      if (!hasMarker(d.attributes.title ?? "", marker) && !hasMarker(d.attributes.summary ?? "", marker))
        continue;
      if (best === undefined || newer(d, best)) best = d;
    }
    // The platform's list items leave out `is_current_build` and `links`, which a caller that
    // claims the deployment needs: the single view carries them.
    if (
      best !== undefined &&
      (best.attributes.is_current_build === undefined ||
        best.attributes.is_current_build === null ||
        best.links === undefined ||
        best.links === null)
    ) {
      return this.get(stack, environment, best.id, options);
    }
    return best;
  }
}

/**
 * True when `a` was created after `b`: by `date_created_unix` when both carry it (list items of
 * the real platform may not), else by id (ids grow with time).
 */
function newer(a: Deployment, b: Deployment): boolean {
  const at = a.attributes.date_created_unix;
  const bt = b.attributes.date_created_unix;
  if (typeof at === "number" && typeof bt === "number" && at !== bt) return at > bt;
  return Number(a.id) > Number(b.id);
}
