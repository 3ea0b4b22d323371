import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Deps } from "./context";
import { HttpError, parseWith } from "./errors";
import { envKey } from "./model";

/**
 * The sites the environments serve: every environment of the emulator answers at
 * `/_sites/{stack}/{env}/...` on the emulator's own port, as the build it runs now. Like a real
 * site it knows nothing of the API: no credentials, no API version, no API faults, nothing in the
 * API's request log. A seed points an environment's `url` at it with `{emulator}` (the emulator's
 * address as the client called it): `url: "{emulator}/_sites/acme-web/uat"`.
 */
export const SITES = "/_sites";
/** What a seed's environment `url` starts with to point at the emulator's own address. */
export const EMULATOR_URL_TOKEN = "{emulator}";

/** How a build answers from its next request on (POST .../site hook). */
export const SiteBehaviour = z
  .strictObject({
    /** The build this applies to; absent: every build of the environment that has none of its own. */
    sha: z
      .string()
      .regex(/^[0-9a-f]{40}$/, "expected a 40-character lowercase hex commit hash")
      .optional(),
    status: z.number().int().min(100).max(599).optional(),
    /** The body instead of the default page. */
    body: z.string().max(1_048_576).optional(),
    /** The body repeated (or cut) to this many bytes: a huge answer. */
    body_bytes: z.number().int().min(0).max(16_777_216).optional(),
    /** A `Location` header (with a 3xx status: a redirect). */
    location: z.string().min(1).max(2000).optional(),
    /** Waits this long before the headers. */
    delay_ms: z.number().int().min(0).max(600_000).optional(),
    /** Destroys the connection without an answer. */
    reset: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.reset === true && (v.status !== undefined || v.body !== undefined || v.location !== undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["reset"],
        message: "answers nothing: leave out status, body and location",
      });
    }
  });
export type SiteBehaviour = z.infer<typeof SiteBehaviour>;

type EnvParams = { Params: { stack: string; env: string } };

/** Behaviours set by the hooks and the count of requests each environment's site answered. */
export class Sites {
  private readonly behaviours = new Map<string, SiteBehaviour>();
  private readonly counts = new Map<string, number>();

  set(stack: string, env: string, behaviour: SiteBehaviour): void {
    this.behaviours.set(`${envKey(stack, env)}\u0000${behaviour.sha ?? ""}`, behaviour);
  }

  /** The build's own behaviour, else the environment's, else none (the default page). */
  of(stack: string, env: string, sha: string): SiteBehaviour | undefined {
    return (
      this.behaviours.get(`${envKey(stack, env)}\u0000${sha}`) ??
      this.behaviours.get(`${envKey(stack, env)}\u0000`)
    );
  }

  count(stack: string, env: string): number {
    return this.counts.get(envKey(stack, env)) ?? 0;
  }

  seen(stack: string, env: string): void {
    const key = envKey(stack, env);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  clear(stack?: string, env?: string): void {
    if (stack === undefined || env === undefined) {
      this.behaviours.clear();
      this.counts.clear();
      return;
    }
    const prefix = `${envKey(stack, env)}\u0000`;
    for (const key of [...this.behaviours.keys()]) if (key.startsWith(prefix)) this.behaviours.delete(key);
    this.counts.delete(envKey(stack, env));
  }
}

export function isSitePath(path: string): boolean {
  return path === SITES || path.startsWith(`${SITES}/`);
}

/** An environment `url` of the seed with `{emulator}` replaced by the emulator's address. */
export function siteUrl(url: string, base: string): string {
  return url.startsWith(EMULATOR_URL_TOKEN) ? `${base}${url.slice(EMULATOR_URL_TOKEN.length)}` : url;
}

function defaultPage(stack: string, env: string, sha: string): string {
  return `<!doctype html>\n<title>${stack}/${env}</title>\n<p>ok: ${stack}/${env} runs build ${sha}</p>\n`;
}

function sized(text: string, bytes: number): Buffer {
  const unit = Buffer.from(text === "" ? " " : text);
  const out = Buffer.alloc(bytes);
  for (let at = 0; at < bytes; at += unit.length) unit.copy(out, at, 0, Math.min(unit.length, bytes - at));
  return out;
}

async function answer(deps: Deps, sites: Sites, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const path = request.url.split("?")[0] ?? request.url;
  const [stack = "", env = ""] = path
    .slice(SITES.length + 1)
    .split("/")
    .map((s) => decodeURIComponent(s));
  const live = deps.store.envs.get(envKey(stack, env));
  if (live === undefined) {
    reply.code(404).header("content-type", "text/plain; charset=utf-8");
    await reply.send(`no site ${stack}/${env} on this emulator\n`);
    return;
  }
  sites.seen(stack, env);
  const sha = live.build_sha;
  const behaviour = sites.of(stack, env, sha);
  if (behaviour?.delay_ms !== undefined && behaviour.delay_ms > 0)
    await deps.scheduler.sleep(behaviour.delay_ms);
  if (behaviour?.reset === true || request.raw.socket.destroyed) {
    reply.hijack();
    request.raw.socket.destroy();
    return;
  }
  const text = behaviour?.body ?? defaultPage(stack, env, sha);
  const body = behaviour?.body_bytes === undefined ? Buffer.from(text) : sized(text, behaviour.body_bytes);
  reply
    .code(behaviour?.status ?? 200)
    .header("x-build-sha", sha)
    .header("cache-control", "no-store")
    .header(
      "content-type",
      behaviour?.body === undefined ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
    );
  if (behaviour?.location !== undefined) reply.header("location", behaviour.location);
  await reply.send(request.method === "HEAD" ? undefined : body);
}

/** The sites' routes and their hooks (under /_emulator/, loopback only like every hook). */
export function registerSites(app: FastifyInstance, deps: Deps, sites: Sites): void {
  for (const url of [SITES, `${SITES}/*`]) {
    app.get(url, (request, reply) => answer(deps, sites, request, reply));
  }
  const hook = "/_emulator/project/:stack/environment/:env/site";
  const known = (stack: string, env: string) => {
    if (!deps.store.envs.has(envKey(stack, env))) throw new HttpError(404, `No environment ${stack}/${env}`);
  };
  app.post<EnvParams>(hook, (request, reply) => {
    const behaviour = parseWith(SiteBehaviour, request.body, "request body");
    known(request.params.stack, request.params.env);
    sites.set(request.params.stack, request.params.env, behaviour);
    return reply.code(204).send();
  });
  app.delete<EnvParams>(hook, (request, reply) => {
    known(request.params.stack, request.params.env);
    sites.clear(request.params.stack, request.params.env);
    return reply.code(204).send();
  });
  app.get<EnvParams>(hook, (request, reply) => {
    const { stack, env } = request.params;
    known(stack, env);
    const live = deps.store.envs.get(envKey(stack, env));
    return reply
      .code(200)
      .header("content-type", "application/json")
      .send(JSON.stringify({ build_sha: live?.build_sha ?? null, requests: sites.count(stack, env) }));
  });
}
