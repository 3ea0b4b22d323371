import { createHash, timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { API_VERSIONS, type ApiVersion, MEDIA_TYPE, isLoopbackHost } from "../api";
import { type Deps, type RequestState, stateOf } from "./context";
import { HttpError, errorDocument } from "./errors";
import type { Fault } from "./faults";
import { DOWNLOADS } from "./archive";
import { registerDownloads } from "./routes/downloads";
import { registerHooks } from "./routes/hooks";
import { registerRecords } from "./routes/records";
import { registerSvc } from "./routes/svc";
import { isSitePath, registerSites } from "./sites";
import type { Caller } from "./engine";
import type { Store } from "./store";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
const REASONS: Record<number, string> = {
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};
const ACCEPTED_BODY_TYPES = ["application/vnd.api+json", "application/json"];
const BASIC_CHALLENGE = 'Basic realm="Deployment Management API"';

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Checks `Authorization: Basic <email:token>` against the seed users. */
function authenticate(store: Store, header: string | undefined, known: Map<string, Caller>): Caller {
  // Users are fixed by the seed, so a header that once matched always matches (bounded cache).
  const cached = header === undefined ? undefined : known.get(header);
  if (cached !== undefined) return cached;
  const user = checkCredentials(store, header);
  if (header !== undefined && known.size < 1_000) known.set(header, user);
  return user;
}

function checkCredentials(store: Store, header: string | undefined): Caller {
  if (header === undefined || header === "") {
    throw new HttpError(
      401,
      "Authentication required: send HTTP Basic credentials (your e-mail address and API token)",
      { "www-authenticate": BASIC_CHALLENGE },
    );
  }
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  const decoded = match?.[1] === undefined ? "" : Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = colon > 0 ? store.user(decoded.slice(0, colon)) : undefined;
  const token = colon > 0 ? decoded.slice(colon + 1) : "";
  if (user === undefined || !timingSafeEqual(digest(user.token), digest(token))) {
    throw new HttpError(401, "Invalid credentials: unknown e-mail address or wrong API token", {
      "www-authenticate": BASIC_CHALLENGE,
    });
  }
  return user;
}

function versionFrom(header: string | string[] | undefined): ApiVersion {
  if (header === undefined) return "2.0";
  const value = Array.isArray(header) ? header.join(",") : header.trim();
  const known = API_VERSIONS.find((v) => v === value);
  if (known === undefined) {
    throw new HttpError(400, `Unsupported X-Api-Version '${value}' (supported: ${API_VERSIONS.join(", ")})`);
  }
  return known;
}

function isHookPath(path: string): boolean {
  return path === "/_emulator" || path.startsWith("/_emulator/");
}

/**
 * Why a request to the hooks is refused although it came from this machine: a web page the
 * tester has open can make the browser send one (a DNS-rebound name in `Host`, or a cross-origin
 * `Origin` on a form post), and a hook can wipe a `--state-file`. Tests and scripts send a
 * loopback `Host` and no `Origin`.
 */
export function hookRequestProblem(host: string | undefined, origin: string | undefined): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(`http://${host ?? ""}`).hostname;
  } catch {
    hostname = "";
  }
  if (host === undefined || !isLoopbackHost(hostname)) {
    return "The emulator's hooks answer only requests addressed to a loopback host (Host: 127.0.0.1, localhost or [::1])";
  }
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
    return "The emulator's hooks refuse cross-origin requests (an Origin header of another site)";
  }
  return undefined;
}

function dropConnection(request: FastifyRequest): void {
  request.raw.socket.destroy();
}

/** Builds the Fastify app: request hooks (log, faults, version, auth), routes and error mapping. */
export function buildServer(deps: Deps): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 1_048_576 });
  app.decorateRequest("emu", null);
  const knownCallers = new Map<string, Caller>();

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (type === "") {
      return done(new HttpError(415, `The request body has no Content-Type (send ${MEDIA_TYPE})`), undefined);
    }
    if (!ACCEPTED_BODY_TYPES.includes(type)) {
      return done(
        new HttpError(415, `Unsupported Content-Type '${type}' for the request body (send ${MEDIA_TYPE})`),
        undefined,
      );
    }
    try {
      const value: unknown = JSON.parse(text);
      done(null, value);
    } catch (err) {
      done(
        new HttpError(
          400,
          `Malformed JSON in the request body: ${err instanceof Error ? err.message : String(err)}`,
        ),
        undefined,
      );
    }
  });

  // Hooks are callback-style: the common path (no fault) stays synchronous, without a promise
  // per request; only a scripted fault takes the slow path.
  app.addHook("onRequest", (request, reply, done) => {
    const path = request.url.split("?")[0] ?? request.url;
    if (isHookPath(path)) {
      if (!LOOPBACK.has(request.socket.remoteAddress ?? "")) {
        return done(new HttpError(404, `No endpoint ${request.method} ${path}`));
      }
      const refusal = hookRequestProblem(request.headers.host, request.headers.origin);
      if (refusal !== undefined) return done(new HttpError(403, refusal));
      request.emu = { version: "2.0", caller: null, entry: null, after: null };
      return done();
    }
    // A site is not the API: no credentials, version, faults or API request log (./sites.ts).
    if (isSitePath(path)) {
      request.emu = { version: "2.0", caller: null, entry: null, after: null };
      return done();
    }
    const entry = deps.log.start(request.method, request.url);
    const state: RequestState = { version: "2.0", caller: null, entry, after: null };
    request.emu = state;
    // A download link is its own permission: no version or credentials are read there.
    const open = path.startsWith(`${DOWNLOADS}/`);
    const admit = () => {
      if (open) return done();
      try {
        state.version = versionFrom(request.headers["x-api-version"]);
        state.caller = authenticate(deps.store, request.headers.authorization, knownCallers);
      } catch (err) {
        return done(err instanceof Error ? err : new Error(String(err)));
      }
      return done();
    };
    const fault = deps.faults.take(request.method, path);
    if (fault === undefined) return admit();
    if (fault.phase === "after") {
      state.after = fault;
      return admit();
    }
    if (fault.kind === "latency") {
      // A client that went away while its request was held is never served (as a proxy drops an
      // aborted request): a test that kills the client gets "killed before the write", not a
      // write landing later in another test's world.
      void deps.scheduler.sleep(fault.latency_ms ?? 0).then(() => {
        if (!request.raw.socket.destroyed) return admit();
        entry.status = 0;
        entry.done = true;
        reply.hijack();
      });
      return;
    }
    if (fault.kind === "drop") {
      // The lifecycle ends here: no handler runs and nothing is answered.
      entry.status = 0;
      entry.done = true;
      reply.hijack();
      dropConnection(request);
      return;
    }
    return done(faultError(fault));
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    const state = request.emu;
    const fault = state?.after ?? null;
    if (state === null || fault === null) return done(null, payload);
    state.after = null;
    if (fault.kind === "latency") {
      void deps.scheduler.sleep(fault.latency_ms ?? 0).then(() => done(null, payload));
      return;
    }
    if (fault.kind === "drop") {
      if (state.entry !== null) {
        state.entry.status = 0;
        state.entry.done = true;
      }
      dropConnection(request);
      return done(null, payload);
    }
    const err = faultError(fault);
    reply.code(err.status);
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    reply.header("content-type", MEDIA_TYPE);
    return done(null, Buffer.from(JSON.stringify(errorDocument(err.status, err.title, state.version))));
  });

  // A client that gave up (its own timeout) before the answer still made the request: log it
  // with status 0, as a dropped connection is, so tests can count every attempt.
  app.addHook("onRequestAbort", (request, done) => {
    const entry = request.emu?.entry ?? null;
    if (entry !== null && !entry.done) {
      entry.status = 0;
      entry.done = true;
    }
    done();
  });

  app.addHook("onResponse", (request, reply, done) => {
    const entry = request.emu?.entry ?? null;
    if (entry !== null && !entry.done) {
      entry.status = reply.statusCode;
      entry.done = true;
    }
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    const version = request.emu?.version ?? "2.0";
    let status = 500;
    let title: string;
    if (error instanceof HttpError) {
      status = error.status;
      title = error.title;
      for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
    } else if (
      typeof error === "object" &&
      error !== null &&
      "statusCode" in error &&
      typeof error.statusCode === "number" &&
      error.statusCode >= 400 &&
      error.statusCode < 500
    ) {
      status = error.statusCode;
      title = "message" in error && typeof error.message === "string" ? error.message : "Bad request";
    } else {
      title = `Internal emulator error: ${error instanceof Error ? error.message : String(error)}`;
      console.error(`emulator: ${request.method} ${request.url} failed:`, error);
    }
    reply.code(status).header("content-type", MEDIA_TYPE);
    return reply.send(Buffer.from(JSON.stringify(errorDocument(status, title, version))));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? request.url;
    const version = request.emu?.version ?? "2.0";
    reply.code(404).header("content-type", MEDIA_TYPE);
    return reply.send(
      Buffer.from(JSON.stringify(errorDocument(404, `No endpoint ${request.method} ${path}`, version))),
    );
  });

  registerSvc(app, deps);
  registerRecords(app, deps);
  registerHooks(app, deps);
  registerDownloads(app, deps);
  registerSites(app, deps, deps.sites);
  return app;
}

function faultError(fault: Fault): HttpError {
  const status = fault.status ?? 500;
  const headers: Record<string, string> = {};
  let title = REASONS[status] ?? "Error";
  if (fault.retry_after !== undefined) {
    headers["retry-after"] = String(fault.retry_after);
    title += `: retry after ${fault.retry_after} seconds`;
  }
  return new HttpError(status, title, headers);
}

export { stateOf };
