/**
 * The generic record server under /api/v1 (alpha). Only "get a record" and "run a method" are
 * implemented by the platform; the other methods exist so every documented route has one, and
 * currently answer an error (typically NotFoundError).
 */
import { z } from "zod";
import { RecordDocument, RecordMethodResult } from "../api";
import type { CallOptions } from "./call-options";
import { decodeWith, noContent } from "./decode";
import type { HttpCore } from "./http";
import { InvalidArgumentError } from "./errors";
import { segment } from "./paths";

/** Field values used in searches and updates. */
export type RecordFields = Readonly<Record<string, string | number | boolean>>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A class, relation or method name: an identifier (namespaces with `\` would alter the path). */
function identifier(argument: string, value: string): string {
  segment(argument, value);
  if (!IDENTIFIER.test(value)) {
    throw new InvalidArgumentError(
      `[${argument}] ${JSON.stringify(value)} is not an identifier; no request was sent`,
      {
        argument,
      },
    );
  }
  return value;
}

/** Decoders of one record and of a list of records (the record server returns them bare). */
const oneRecord = decodeWith(RecordDocument, (doc) => doc);
const manyRecords = decodeWith(z.array(RecordDocument), (doc) => doc);

/** Records of model classes with `api_access`. */
export class Records {
  readonly #http: HttpCore;
  constructor(http: HttpCore) {
    this.#http = http;
  }

  #path(className: string, id?: string | number, ...rest: [string, string][]): string {
    let out = `/api/v1/${identifier("className", className)}`;
    if (id !== undefined) out += `/${segment("id", String(id))}`;
    for (const [argument, value] of rest)
      out += `/${argument === "foreignId" ? segment(argument, value) : identifier(argument, value)}`;
    return out;
  }

  /** GET /api/v1/{class}/{id}. */
  async get(className: string, id: string | number, options: CallOptions = {}): Promise<RecordDocument> {
    return this.#http.get(this.#path(className, id), oneRecord, options);
  }

  /**
   * POST /api/v1/{class}/{id}/{method}: runs a method (e.g. publish). A create: no marker can be
   * attached, so an ambiguous failure surfaces as OutcomeUnknownError rather than a second run.
   */
  async callMethod(
    className: string,
    id: string | number,
    methodName: string,
    options: CallOptions & { body?: Readonly<Record<string, unknown>> | undefined } = {},
  ): Promise<RecordMethodResult> {
    return this.#http.call({
      method: "POST",
      path: this.#path(className, id, ["methodName", methodName]),
      body: options.body ?? {},
      safety: "create",
      signal: options.signal,
      decode: decodeWith(RecordMethodResult, (doc) => doc),
    });
  }

  /** GET /api/v1/{class}/{id}/{relation} (not implemented by the platform). */
  async related(
    className: string,
    id: string | number,
    relation: string,
    options: CallOptions = {},
  ): Promise<RecordDocument[]> {
    return this.#http.get(this.#path(className, id, ["relation", relation]), manyRecords, options);
  }

  /** GET /api/v1/{class}?field=value (not implemented by the platform). */
  async search(
    className: string,
    fields: RecordFields,
    options: CallOptions = {},
  ): Promise<RecordDocument[]> {
    for (const key of Object.keys(fields)) identifier("fields", key);
    return this.#http.get(this.#path(className), manyRecords, options, fields);
  }

  /** PUT /api/v1/{class}/{id} (not implemented by the platform). Idempotent. */
  async update(
    className: string,
    id: string | number,
    fields: RecordFields,
    options: CallOptions = {},
  ): Promise<RecordDocument> {
    return this.#http.call({
      method: "PUT",
      path: this.#path(className, id),
      body: fields,
      safety: "idempotent",
      signal: options.signal,
      decode: oneRecord,
    });
  }

  /** PUT /api/v1/{class}/{id}/{relation} with the ids to keep (not implemented by the platform). */
  async replaceRelation(
    className: string,
    id: string | number,
    relation: string,
    ids: readonly (string | number)[],
    options: CallOptions = {},
  ): Promise<void> {
    return this.#relationIds("PUT", className, id, relation, ids, options);
  }

  /** POST /api/v1/{class}/{id}/{relation} (not implemented by the platform). Not repeated blindly. */
  async appendRelation(
    className: string,
    id: string | number,
    relation: string,
    ids: readonly (string | number)[],
    options: CallOptions = {},
  ): Promise<void> {
    return this.#relationIds("POST", className, id, relation, ids, options);
  }

  /** Sends `{ids}` to a relation: a PUT replaces (idempotent), a POST appends (a create). */
  #relationIds(
    method: "PUT" | "POST",
    className: string,
    id: string | number,
    relation: string,
    ids: readonly (string | number)[],
    options: CallOptions,
  ): Promise<void> {
    return this.#http.call({
      method,
      path: this.#path(className, id, ["relation", relation]),
      body: { ids },
      safety: method === "PUT" ? "idempotent" : "create",
      signal: options.signal,
      decode: noContent,
    });
  }

  /** DELETE /api/v1/{class}/{id} (not implemented by the platform). */
  async delete(className: string, id: string | number, options: CallOptions = {}): Promise<void> {
    return this.#http.delete(this.#path(className, id), options);
  }

  /** DELETE /api/v1/{class}/{id}/{relation}/{foreignId}: unlink without deleting (not implemented). */
  async unlink(
    className: string,
    id: string | number,
    relation: string,
    foreignId: string | number,
    options: CallOptions = {},
  ): Promise<void> {
    return this.#http.delete(
      this.#path(className, id, ["relation", relation], ["foreignId", String(foreignId)]),
      options,
    );
  }
}
