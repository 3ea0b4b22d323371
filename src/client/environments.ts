/** Read-only environment endpoints: 4 (view), 5 (modules), 23 (domains), 24 (configuration), 26 (whitelist). */
import {
  ConfigurationListDocument,
  DomainListDocument,
  EnvironmentDocument,
  ModuleListDocument,
  ModuleListQuery,
  WhitelistDocument,
  type Configuration,
  type Domain,
  type Environment,
  type InstalledModule,
  type Whitelist,
} from "../api";
import type { CallOptions } from "./call-options";
import { decodeWith, nextLink, type HttpCore } from "./http";
import { segment } from "./paths";
import { validateInput } from "./validate-input";

/** Options of {@link Environments.modules}. */
export interface ModulesOptions extends CallOptions {
  /** Module names as in the dependency lock file; all modules when absent. */
  filters?: readonly string[] | undefined;
}

/** Environments of a stack. */
export class Environments {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  #path(stack: string, environment: string, rest = ""): string {
    return `/svc/project/${segment("stack", stack)}/environment/${segment("environment", environment)}${rest}`;
  }

  /** GET .../environment/{environment}. */
  async get(stack: string, environment: string, options: CallOptions = {}): Promise<Environment> {
    return this.#http.call({
      method: "GET",
      path: this.#path(stack, environment),
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(EnvironmentDocument, (doc) => doc.data),
    });
  }

  /** GET .../modules, optionally only the named modules (`filters[]=name`). */
  async modules(
    stack: string,
    environment: string,
    options: ModulesOptions = {},
  ): Promise<InstalledModule[]> {
    const query = validateInput("filters", ModuleListQuery, { filters: options.filters });
    return this.#http.call({
      method: "GET",
      path: this.#path(stack, environment, "/modules"),
      query: { filters: query.filters },
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(ModuleListDocument, (doc) => doc.data),
    });
  }

  /** GET .../domains (all pages). */
  async domains(stack: string, environment: string, options: CallOptions = {}): Promise<Domain[]> {
    return this.#http.list({
      method: "GET",
      path: this.#path(stack, environment, "/domains"),
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(DomainListDocument, (doc) => ({ items: doc.data, next: nextLink(doc.links) })),
    });
  }

  /** GET .../configuration (all pages). Values may be secrets: do not log them. */
  async configuration(
    stack: string,
    environment: string,
    options: CallOptions = {},
  ): Promise<Configuration[]> {
    return this.#http.list({
      method: "GET",
      path: this.#path(stack, environment, "/configuration"),
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(ConfigurationListDocument, (doc) => ({
        items: doc.data,
        next: nextLink(doc.links),
      })),
    });
  }

  /** GET .../whitelist: one object. */
  async whitelist(stack: string, environment: string, options: CallOptions = {}): Promise<Whitelist> {
    return this.#http.call({
      method: "GET",
      path: this.#path(stack, environment, "/whitelist"),
      safety: "idempotent",
      signal: options.signal,
      decode: decodeWith(WhitelistDocument, (doc) => doc.data),
    });
  }
}
