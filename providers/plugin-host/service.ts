/**
 * The dynamic-provider service: the gRPC `ResourceProvider` the engine calls for every resource of
 * type `pulumi-nodejs:dynamic/...`, doing what the SDK's own (`@pulumi/pulumi/cmd/dynamic-
 * provider`) does, method for method, for any dynamic provider: each request carries the
 * serialized provider (`__provider`), which is evaluated once per text and called. What differs is
 * what it loads: the SDK's service loads the SDK's whole runtime (with a TypeScript parser, for
 * closure serialization this process never does), about 0.9 CPU-seconds for every per-file stack
 * of a run; this one loads gRPC, the generated messages and zod.
 */
import * as grpc from "@grpc/grpc-js";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import * as anyproto from "google-protobuf/google/protobuf/any_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { createRequire } from "node:module";
import * as path from "node:path";
import { Script } from "node:vm";
import { z } from "zod";

/** The property that holds the serialized provider, in inputs and outputs. */
const PROVIDER_KEY = "__provider";
/** The engine's stand-in for a value not known during preview (the SDK's `rpc.unknownValue`). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The signature of a secret value in a configuration map (the SDK's `rpc.specialSecretSig`). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Props = { [key: string]: JavaScriptValue };
type Method = (...args: unknown[]) => unknown;
type Provider = Readonly<Record<string, Method | undefined>>;

// What each method of a dynamic provider returns (pulumi.dynamic.ResourceProvider).
const propsSchema = z.record(
  z.string(),
  z.custom<JavaScriptValue>(() => true),
);
const checkResult = z
  .object({
    inputs: propsSchema.optional(),
    failures: z.array(z.object({ property: z.string(), reason: z.string() })).optional(),
  })
  .loose();
const diffResult = z
  .object({
    changes: z.boolean().optional(),
    replaces: z.array(z.string()).optional(),
    deleteBeforeReplace: z.boolean().optional(),
  })
  .loose();
const createResult = z.object({ id: z.string(), outs: propsSchema.optional() }).loose();
const readResult = z
  .object({ id: z.string().optional(), props: propsSchema.optional(), inputs: propsSchema.optional() })
  .loose();
const updateResult = z.object({ outs: propsSchema.optional() }).loose().nullish();
// An error a create or update throws after the resource exists (the SDK's ResourceError shape).
const initFailure = z
  .object({
    id: z.string().min(1),
    properties: propsSchema.optional(),
    reasons: z.array(z.string()).optional(),
  })
  .loose();

const providers = new Map<string, Provider>();

/**
 * The provider a serialized text describes: the text is a CommonJS module exporting `handler`,
 * run as the SDK runs it (not in strict mode: the SDK's serializer emits `with` blocks), with
 * `require` resolving from the working directory, the program directory the engine gave us.
 */
function providerOf(text: JavaScriptValue | undefined): Provider {
  if (typeof text !== "string") throw new Error(`the resource has no serialized provider (${PROVIDER_KEY})`);
  const known = providers.get(text);
  if (known !== undefined) return known;
  const filename = path.join(process.cwd(), "__provider.js");
  const exports: Record<string, unknown> = {};
  const module = { exports };
  const wrapper: unknown = new Script(
    `(function (exports, require, module, __filename, __dirname) {${text}\n})`,
    { filename },
  ).runInThisContext();
  if (typeof wrapper !== "function") throw new Error("the serialized provider is not a module");
  wrapper(module.exports, createRequire(filename), module, filename, path.dirname(filename));
  const handler = module.exports["handler"];
  if (typeof handler !== "function") throw new Error("the serialized provider exports no handler");
  const made: unknown = handler();
  if (typeof made !== "object" || made === null)
    throw new Error("the serialized provider's handler made no provider");
  const provider: Provider = Object.fromEntries(
    Object.entries(made).flatMap(([name, value]) => {
      if (typeof value !== "function") return [];
      const method: Method = (...args) => {
        const result: unknown = Reflect.apply(value, made, args);
        return result;
      };
      return [[name, method]];
    }),
  );
  providers.set(text, provider);
  return provider;
}

/** The configuration map, secrets unwrapped, as the SDK's dynamic `Config` reads it. */
class Config {
  constructor(
    private readonly raw: Readonly<Record<string, JavaScriptValue>>,
    private readonly project: string,
  ) {}
  get(key: string): string | undefined {
    const value = this.raw[key.includes(":") ? key : `${this.project}:${key}`];
    return value === undefined || value === null ? undefined : String(value);
  }
  require(key: string): string {
    const value = this.get(key);
    if (value === undefined) throw new Error(`Missing required configuration key: ${key}`);
    return value;
  }
}

const secretSchema = z.object({
  [SIG_KEY]: z.literal(SECRET_SIG),
  value: z.custom<JavaScriptValue>(() => true),
});

function unwrapSecret(value: JavaScriptValue): JavaScriptValue {
  const secret = secretSchema.safeParse(value);
  return secret.success ? (secret.data.value ?? null) : value;
}

const props = (s: Struct | undefined): Props => s?.toJavaScript() ?? {};
const withProvider = (result: Props | undefined, from: Props): Props => ({
  ...result,
  [PROVIDER_KEY]: from[PROVIDER_KEY] ?? null,
});

/** The gRPC error of a failed create or update: an init failure keeps the id and outputs. */
function createError(e: unknown): grpc.ServiceError {
  const message = e instanceof Error ? e.message : String(e);
  const metadata = new grpc.Metadata();
  const failed = initFailure.safeParse(e);
  if (failed.success) {
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(failed.data.id);
    detail.setProperties(Struct.fromJavaScript(failed.data.properties ?? {}));
    detail.setReasonsList(failed.data.reasons ?? []);
    const details = new anyproto.Any();
    details.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(details);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata });
}

/**
 * Any other failure. A decision of ours (a ProviderError, an API error) reaches the engine as its
 * message alone; anything else is a bug, printed with its stack on stderr behind a line that says
 * so (the SDK's service prints every stack).
 */
export function plainError(e: unknown): Error {
  const err = e instanceof Error ? e : new Error(String(e));
  if (!isDecided(err)) console.error(`${BUG_LINE}\n${String(err)}: ${err.stack ?? ""}`);
  return err;
}

/**
 * The brands of the errors raised on purpose (providers/shared/errors.ts, src/client/errors.ts):
 * this process imports none of ours, so it knows them by their registered symbols.
 */
const DECIDED = [
  Symbol.for("stackwright.providers.ProviderError"),
  Symbol.for("stackwright.client.ApiError"),
];

/** An error raised on purpose: its message says all the user needs. */
function isDecided(err: Error): boolean {
  return DECIDED.some((brand) => Reflect.get(err, brand) === true);
}

/** The line in front of the trace of an error nobody meant to raise (README, "Reporting a bug"). */
const BUG_LINE =
  "stackwright: this is a bug in Stackwright, not in your settings; please report it with the lines below " +
  '(see README.md, "Reporting a bug")';

/** The SDK's own limit for a message from the engine (runtime/settings.ts), for every server of ours it talks to. */
export const MAX_ENGINE_MESSAGE_BYTES = 400 * 1024 * 1024;

type Unary<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;

/** Runs the work of one request: as it is, or (a shared host) in the context of its engine run. */
export type Around = <T>(work: () => Promise<T>) => Promise<T>;
const asItIs: Around = (work) => work();

/** What a host adds to the service: nothing for a plugin process of its own (main.ts). */
export interface ServiceHooks {
  /**
   * An engine that attached to this service (PULUMI_DEBUG_PROVIDERS) gives its address, where it
   * takes the provider's log lines (a plugin process it started has its stdout read instead).
   */
  readonly attached?: (engineAddress: string) => void;
  /** Runs every request's work. */
  readonly around?: Around;
  /**
   * Around each create, given its URN and inputs: `run` calls the provider; the hook may hold
   * it, or answer without it (shared-host.ts guards never-repeated creates this way).
   */
  readonly create?: (urn: string, inputs: Props, run: () => Promise<Created>) => Promise<Created>;
}

/** A create's answer: the resource's id and its outputs (with the provider text). */
export interface Created {
  readonly id: string;
  readonly properties: Props;
}

const unimplemented =
  (what: string): Unary<unknown, unknown> =>
  (_call, callback) =>
    callback(
      { code: grpc.status.UNIMPLEMENTED, details: `${what} is not implemented by the dynamic provider` },
      null,
    );

/**
 * The service, for one engine connection: configuration arrives once per connection. A plugin
 * process serves one; a shared host (shared-host.ts) serves one per engine run it is attached to.
 */
export function dynamicProviderService(
  project: string,
  version: string,
  hooks: ServiceHooks = {},
): grpc.UntypedServiceImplementation {
  const around = hooks.around ?? asItIs;
  /** A unary handler from an async function; `onError` turns a failure into the gRPC error. */
  const unary =
    <Req, Res>(
      fn: (req: Req) => Promise<Res>,
      onError: (e: unknown) => grpc.ServiceError | Error = plainError,
    ): Unary<Req, Res> =>
    (call, callback) => {
      around(() => fn(call.request)).then(
        (res) => callback(null, res),
        (e: unknown) => callback(onError(e), null),
      );
    };
  let config: Record<string, JavaScriptValue> = {};
  const configured = new Set<Provider>();
  /** The provider of a request, configured once with the engine's configuration. */
  const provider = async (text: JavaScriptValue | undefined): Promise<Provider> => {
    const p = providerOf(text);
    if (!configured.has(p)) {
      configured.add(p);
      await p["configure"]?.({ config: new Config(config, project) });
    }
    return p;
  };
  const chosen = (olds: Props, news: Props) => (news[PROVIDER_KEY] === UNKNOWN ? olds : news)[PROVIDER_KEY];

  return {
    cancel: unary(() => Promise.resolve(new emptyproto.Empty())),
    getPluginInfo: unary(() => Promise.resolve(new plugproto.PluginInfo().setVersion(version))),
    configure: unary((req: provproto.ConfigureRequest) => {
      const args = props(req.getArgs());
      config = Object.fromEntries(
        Object.entries(args)
          .filter(([k]) => k !== PROVIDER_KEY)
          .map(([k, v]) => [k, unwrapSecret(v)]),
      );
      return Promise.resolve(new provproto.ConfigureResponse().setAcceptsecrets(false));
    }),
    check: unary(async (req: provproto.CheckRequest) => {
      const olds = props(req.getOlds());
      const news = props(req.getNews());
      const p = await provider(chosen(olds, news));
      const result = checkResult.parse(p["check"] === undefined ? {} : await p["check"](olds, news));
      const inputs = { ...(result.inputs ?? news), [PROVIDER_KEY]: news[PROVIDER_KEY] ?? null };
      const resp = new provproto.CheckResponse().setInputs(Struct.fromJavaScript(inputs));
      resp.setFailuresList(
        (result.failures ?? []).map((f) =>
          new provproto.CheckFailure().setProperty(f.property).setReason(f.reason),
        ),
      );
      return resp;
    }),
    diff: unary(async (req: provproto.DiffRequest) => {
      // As in the SDK: a changed provider alone is no change (each version handles older state).
      const olds = props(req.getOlds());
      const news = props(req.getNews());
      const p = await provider(chosen(olds, news));
      const resp = new provproto.DiffResponse();
      if (p["diff"] !== undefined) {
        const result = diffResult.parse(await p["diff"](req.getId(), olds, news));
        const { DiffChanges } = provproto.DiffResponse;
        resp.setChanges(
          result.changes === true
            ? DiffChanges.DIFF_SOME
            : result.changes === false
              ? DiffChanges.DIFF_NONE
              : DiffChanges.DIFF_UNKNOWN,
        );
        if (result.replaces !== undefined && result.replaces.length > 0)
          resp.setReplacesList(result.replaces);
        if (result.deleteBeforeReplace === true) resp.setDeletebeforereplace(true);
      }
      return resp;
    }),
    create: unary(async (req: provproto.CreateRequest) => {
      const inputs = props(req.getProperties());
      const run = async (): Promise<Created> => {
        const p = await provider(inputs[PROVIDER_KEY]);
        const create = p["create"];
        if (create === undefined) throw new Error("the dynamic provider has no create");
        const result = createResult.parse(await create(inputs));
        return { id: result.id, properties: withProvider(result.outs, inputs) };
      };
      const created = await (hooks.create === undefined ? run() : hooks.create(req.getUrn(), inputs, run));
      return new provproto.CreateResponse()
        .setId(created.id)
        .setProperties(Struct.fromJavaScript(created.properties));
    }, createError),
    read: unary(async (req: provproto.ReadRequest) => {
      const state = props(req.getProperties());
      const p = await provider(state[PROVIDER_KEY]);
      const resp = new provproto.ReadResponse();
      if (p["read"] === undefined) return resp.setId(req.getId()).setProperties(req.getProperties());
      const result = readResult.parse(await p["read"](req.getId(), state));
      resp.setId(result.id ?? "");
      resp.setProperties(Struct.fromJavaScript(withProvider(result.props, state)));
      if (result.inputs !== undefined)
        resp.setInputs(Struct.fromJavaScript(withProvider(result.inputs, state)));
      return resp;
    }),
    update: unary(async (req: provproto.UpdateRequest) => {
      const olds = props(req.getOlds());
      const news = props(req.getNews());
      const p = await provider(news[PROVIDER_KEY]);
      const result = updateResult.parse(
        p["update"] === undefined ? {} : await p["update"](req.getId(), olds, news),
      );
      return new provproto.UpdateResponse().setProperties(
        Struct.fromJavaScript(withProvider(result?.outs, news)),
      );
    }, createError),
    delete: unary(async (req: provproto.DeleteRequest) => {
      const state = props(req.getProperties());
      const p = await provider(state[PROVIDER_KEY]);
      await p["delete"]?.(req.getId(), state);
      return new emptyproto.Empty();
    }),
    handshake: unimplemented("Handshake"),
    getSchema: unimplemented("GetSchema"),
    checkConfig: unimplemented("CheckConfig"),
    diffConfig: unimplemented("DiffConfig"),
    invoke: unimplemented("Invoke"),
    construct: unimplemented("Construct"),
    call: unimplemented("Call"),
    parameterize: unimplemented("Parameterize"),
    attach:
      hooks.attached === undefined
        ? unimplemented("Attach")
        : unary((req: plugproto.PluginAttach) => {
            hooks.attached?.(req.getAddress());
            return Promise.resolve(new emptyproto.Empty());
          }),
    getMapping: unimplemented("GetMapping"),
    getMappings: unimplemented("GetMappings"),
  };
}
