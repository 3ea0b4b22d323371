/** Read-only environment endpoints: 4 (view), 5 (modules), 23 (domains), 24 (configuration), 26 (whitelist). */
import {
  ConfigurationReadListDocument,
  DomainReadListDocument,
  EnvironmentReadDocument,
  ModuleReadListDocument,
  ModuleListQuery,
  WhitelistReadDocument,
  type Configuration,
  type Domain,
  type Environment,
  type InstalledModule,
  type Whitelist,
} from "../api";
import type { CallOptions } from "./call-options";
import { dataOf, pageOf } from "./decode";
import type { HttpCore } from "./http";
import { environmentPath } from "./paths";
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

  /** GET .../environment/{environment}. */
  async get(stack: string, environment: string, options: CallOptions = {}): Promise<Environment> {
    return this.#http.get(environmentPath(stack, environment), dataOf(EnvironmentReadDocument), options);
  }

  /** GET .../modules, optionally only the named modules (`filters[]=name`). */
  async modules(
    stack: string,
    environment: string,
    options: ModulesOptions = {},
  ): Promise<InstalledModule[]> {
    const query = validateInput("filters", ModuleListQuery, { filters: options.filters });
    return this.#http.get(
      `${environmentPath(stack, environment)}/modules`,
      dataOf(ModuleReadListDocument),
      options,
      { filters: query.filters },
    );
  }

  /** GET .../domains (all pages). */
  async domains(stack: string, environment: string, options: CallOptions = {}): Promise<Domain[]> {
    return this.#http.getAll(
      `${environmentPath(stack, environment)}/domains`,
      pageOf(DomainReadListDocument),
      options,
    );
  }

  /** GET .../configuration (all pages). Values may be secrets: do not log them. */
  async configuration(
    stack: string,
    environment: string,
    options: CallOptions = {},
  ): Promise<Configuration[]> {
    return this.#http.getAll(
      `${environmentPath(stack, environment)}/configuration`,
      pageOf(ConfigurationReadListDocument),
      options,
    );
  }

  /** GET .../whitelist: one object. */
  async whitelist(stack: string, environment: string, options: CallOptions = {}): Promise<Whitelist> {
    return this.#http.get(
      `${environmentPath(stack, environment)}/whitelist`,
      dataOf(WhitelistReadDocument),
      options,
    );
  }
}
