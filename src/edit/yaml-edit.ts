/**
 * Byte-exact edits of one mapping of a YAML file, the way Renovate edits manifests: the `yaml`
 * package's Document API finds the nodes and their byte ranges, and only the bytes of the values
 * that change are replaced (keys added or removed as whole lines, or as `k: v` items of a flow
 * map). Everything else of the file (comments, key order, quoting, blank lines, anchors) stays
 * as it was; the file is never re-serialised.
 *
 * Every edit is checked before it is returned: the new text must parse to exactly the old
 * values with the mapping's keys changed as asked, or the edit is refused and nothing changes.
 * A mapping shared through an anchor and an alias is refused too (changing it in place would
 * change the other place), except that a mapping that is itself an alias (`deployment: *base`)
 * is replaced by a flow map of its own.
 */
import { isDeepStrictEqual } from "node:util";
import {
  type Alias,
  type Document,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  parse,
  parseDocument,
  visit,
} from "yaml";
import { EditRefusal } from "./errors";

/** A value this editor writes: YAML scalars only. */
export type EditValue = string | number | boolean;

/** What to change in one mapping. */
export interface MapEdit {
  /** Keys to set, in the order in which new keys are written (each after the one before it). */
  readonly set: readonly (readonly [string, EditValue])[];
  /** Keys to remove (absent ones are ignored). */
  readonly remove: readonly string[];
}

/** A text operation on the original: replace `[start, end)` by `text`. */
interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

type PlainObject = Record<string, unknown>;

const PARSE_OPTIONS = { uniqueKeys: true } as const;
const TO_JS = { maxAliasCount: 100 } as const;

/**
 * Applies `edit` to the mapping at `path` (keys from the top) of `text` and returns the new text.
 * Throws {@link EditRefusal} when the mapping is missing, shared through an anchor, written in a
 * layout this editor does not change, or when the result would not be exactly what was asked.
 */
export function editMap(file: string, text: string, path: readonly string[], edit: MapEdit): string {
  const where = path.join(".");
  const refuse = (code: EditRefusal["code"], message: string): never => {
    throw new EditRefusal(code, file, where, `${file}: ${where}: ${message}`);
  };
  const doc = parseDocument(text, PARSE_OPTIONS);
  if (doc.errors.length > 0)
    refuse("invalid-before", `the file is not valid YAML (${doc.errors[0]?.message})`);
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
  const shared = aliasedNodes(doc);

  let node: unknown = doc.contents;
  for (let i = 0; i < path.length; i++) {
    const here = path.slice(0, i).join(".") || "the top level";
    if (isAlias(node)) {
      refuse(
        "shared-anchor",
        `${here} is an alias (*${node.source}, line ${lineOf(node.range?.[0] ?? 0)}): its lines belong to another ` +
          `place; write it out in full there first`,
      );
    }
    if (!isMap(node)) return refuse("missing", `${here} is not a map, so it has no '${path[i]}'`);
    if (shared.has(node)) refuse("shared-anchor", sharedMessage(here, node, lineOf));
    const pair = pairOf(node, path[i] ?? "");
    if (pair === undefined) return refuse("missing", `${here} has no '${path[i]}'`);
    node = pair.value;
  }

  let next: string;
  if (isAlias(node)) {
    next = replaceAlias(doc, text, node, edit, refuse);
  } else if (isMap(node)) {
    if (shared.has(node)) refuse("shared-anchor", sharedMessage(where, node, lineOf));
    next = applySplices(text, editInPlace(text, node, edit, shared, refuse, lineOf));
  } else {
    return refuse("missing", "is not a map");
  }
  verify(doc, next, path, edit, refuse);
  return next;
}

/** Every node that some alias of the document refers to. */
function aliasedNodes(doc: Document.Parsed): Set<unknown> {
  const shared = new Set<unknown>();
  visit(doc, {
    Alias(_, alias) {
      const target = alias.resolve(doc);
      if (target !== undefined) shared.add(target);
    },
  });
  return shared;
}

function sharedMessage(where: string, node: Node, lineOf: (o: number) => number): string {
  return (
    `is anchored (&${node.anchor ?? "?"}, line ${lineOf(node.range?.[0] ?? 0)}) and reused by an alias elsewhere; ` +
    `changing it would change that place too; give it its own copy first`
  );
}

function pairOf(map: YAMLMap, key: string): Pair<unknown, unknown> | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key);
}

function keyOf(pair: Pair<unknown, unknown>): string {
  return isScalar(pair.key) ? String(pair.key.value) : "";
}

type Refuse = (code: EditRefusal["code"], message: string) => never;

/** The splices that change `map` in place. */
function editInPlace(
  text: string,
  map: YAMLMap,
  edit: MapEdit,
  shared: Set<unknown>,
  refuse: Refuse,
  lineOf: (o: number) => number,
): Splice[] {
  const flow = map.flow === true;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const splices: Splice[] = [];
  for (const pair of map.items) {
    if (!isScalar(pair.key) || pair.key.range === undefined || pair.key.range === null) {
      refuse("unsupported-layout", `has a key that is not plain text (line ${lineOf(map.range?.[0] ?? 0)})`);
    }
  }
  const first = map.items[0];
  const indent = first === undefined ? "" : blockIndent(text, first, flow, refuse);

  for (const key of edit.remove) {
    const pair = pairOf(map, key);
    if (pair === undefined) continue;
    if (shared.has(pair.value) || shared.has(pair.key)) {
      refuse(
        "shared-anchor",
        `${key}: is anchored and reused by an alias elsewhere; removing it would break that`,
      );
    }
    splices.push(flow ? removeFlowPair(text, pair, refuse) : removeBlockPair(text, pair, refuse));
  }

  // New keys go after the nearest key before them in `set` that the map has, else after the last.
  const inserts = new Map<Pair<unknown, unknown>, string[]>();
  let anchor: Pair<unknown, unknown> | undefined;
  for (const [key, value] of edit.set) {
    const pair = pairOf(map, key);
    if (pair !== undefined) {
      anchor = pair;
      const splice = setValue(text, pair, value, flow, shared, refuse);
      if (splice !== undefined) splices.push(splice);
      continue;
    }
    const after = anchor ?? map.items.at(-1);
    if (after === undefined) refuse("unsupported-layout", "is an empty map; write its keys by hand");
    const item = `${renderKey(key, flow)}: ${renderValue(value, flow, undefined)}`;
    inserts.set(after, [...(inserts.get(after) ?? []), item]);
  }
  for (const [after, items] of inserts) {
    if (flow) {
      const at = valueEnd(after);
      splices.push({ start: at, end: at, text: items.map((item) => `, ${item}`).join("") });
    } else {
      const at = endOfLine(text, lastOffset(after));
      const lead = at === text.length && !text.endsWith("\n") ? eol : "";
      splices.push({
        start: at,
        end: at,
        text: lead + items.map((item) => `${indent}${item}${eol}`).join(""),
      });
    }
  }
  return splices;
}

/** The spaces before the first key of a block map (each key of it starts a line). */
function blockIndent(text: string, first: Pair<unknown, unknown>, flow: boolean, refuse: Refuse): string {
  if (flow) return "";
  const start = (first.key as Scalar).range?.[0] ?? 0;
  const indent = text.slice(text.lastIndexOf("\n", start - 1) + 1, start);
  if (!/^ *$/.test(indent)) refuse("unsupported-layout", "has a key that does not start its line");
  return indent;
}

/** Where the pair's value ends (its key's end when the value is empty). */
function valueEnd(pair: Pair<unknown, unknown>): number {
  const value = pair.value as Node | null;
  const keyEnd = (pair.key as Scalar).range?.[1] ?? 0;
  const range = value?.range;
  return range === undefined || range === null ? keyEnd : Math.max(range[1], keyEnd);
}

/** The offset of the last character of the pair (the `:` for an empty value). */
function lastOffset(pair: Pair<unknown, unknown>): number {
  const value = pair.value as Node | null;
  const key = (pair.key as Scalar).range ?? [0, 0, 0];
  const range = value?.range;
  if (range !== undefined && range !== null && range[1] > range[0]) return range[1] - 1;
  return Math.max(range?.[0] ?? key[1], key[1]) - 1;
}

/** The offset just after the line that holds `offset` (the end of the text when it has no newline). */
function endOfLine(text: string, offset: number): number {
  const newline = text.indexOf("\n", Math.max(offset, 0));
  return newline === -1 ? text.length : newline + 1;
}

function setValue(
  text: string,
  pair: Pair<unknown, unknown>,
  value: EditValue,
  flow: boolean,
  shared: Set<unknown>,
  refuse: Refuse,
): Splice | undefined {
  const key = keyOf(pair);
  const node = pair.value;
  if (isScalar(node) && !isAlias(node) && node.value === value) return undefined;
  if (node === null || node === undefined || isCollection(node)) {
    refuse("unsupported-layout", `${key}: holds no plain value; write it by hand`);
  }
  if (shared.has(node)) {
    refuse(
      "shared-anchor",
      `${key}: is anchored and reused by an alias elsewhere; changing it would change that too`,
    );
  }
  const target = node as Scalar | Alias;
  const range = target.range ?? [0, 0, 0];
  const old = text.slice(range[0], range[1]);
  const style = isScalar(target) ? target.type : undefined;
  if (old === "") {
    const space = /\s/.test(text[range[0] - 1] ?? "") ? "" : " ";
    return { start: range[0], end: range[0], text: `${space}${renderValue(value, flow, undefined)}` };
  }
  // A block scalar (`|`, `>`) owns its line ends; the plain or quoted value that replaces it ends its line.
  const block = style === "BLOCK_LITERAL" || style === "BLOCK_FOLDED";
  const trail = block ? (/\r?\n$/.exec(old)?.[0] ?? "") : "";
  return {
    start: range[0],
    end: range[1],
    text: `${renderValue(value, flow, block ? undefined : style)}${trail}`,
  };
}

function removeBlockPair(text: string, pair: Pair<unknown, unknown>, refuse: Refuse): Splice {
  const keyStart = (pair.key as Scalar).range?.[0] ?? 0;
  const start = text.lastIndexOf("\n", keyStart - 1) + 1;
  if (!/^ *$/.test(text.slice(start, keyStart))) {
    refuse("unsupported-layout", `${keyOf(pair)}: does not start its line`);
  }
  return { start, end: endOfLine(text, lastOffset(pair)), text: "" };
}

function removeFlowPair(text: string, pair: Pair<unknown, unknown>, refuse: Refuse): Splice {
  const start = (pair.key as Scalar).range?.[0] ?? 0;
  const end = valueEnd(pair);
  let after = end;
  while (/[ \t\r\n]/.test(text[after] ?? "")) after++;
  if (text[after] === ",") {
    let next = after + 1;
    while (/[ \t]/.test(text[next] ?? "")) next++;
    return { start, end: next, text: "" };
  }
  let before = start - 1;
  while (/[ \t\r\n]/.test(text[before] ?? "")) before--;
  if (text[before] === ",") return { start: before, end, text: "" };
  return refuse("unsupported-layout", `${keyOf(pair)}: is not separated by a comma; remove it by hand`);
}

/** Replaces `deployment: *base` by a flow map of the base's values with the edit applied. */
function replaceAlias(
  doc: Document.Parsed,
  text: string,
  alias: Alias,
  edit: MapEdit,
  refuse: Refuse,
): string {
  const base = alias.resolve(doc);
  if (!isMap(base)) return refuse("missing", `is an alias (*${alias.source}) of something that is not a map`);
  const values = base.toJS(doc, TO_JS) as PlainObject;
  const entries = Object.entries(applyEdit(values, edit));
  const items = entries.map(([key, value]) => {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      return refuse("unsupported-layout", `${key}: is not a plain value; write the map out by hand`);
    }
    return `${renderKey(key, true)}: ${renderValue(value, true, undefined)}`;
  });
  const range = alias.range ?? [0, 0, 0];
  return applySplices(text, [{ start: range[0], end: range[1], text: `{ ${items.join(", ")} }` }]);
}

/** `values` with the edit applied: keys kept in order, new ones after the key before them in `set`. */
export function applyEdit(values: Readonly<PlainObject>, edit: MapEdit): PlainObject {
  const keys = Object.keys(values).filter((k) => !edit.remove.includes(k));
  const setKeys = edit.set.map(([k]) => k);
  for (const [i, key] of setKeys.entries()) {
    if (keys.includes(key)) continue;
    const before = setKeys
      .slice(0, i)
      .reverse()
      .find((k) => keys.includes(k));
    keys.splice(before === undefined ? keys.length : keys.indexOf(before) + 1, 0, key);
  }
  const result: PlainObject = {};
  for (const key of keys) {
    const set = edit.set.find(([k]) => k === key);
    result[key] = set === undefined ? values[key] : set[1];
  }
  return result;
}

function applySplices(text: string, splices: readonly Splice[]): string {
  const ordered = [...splices].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const s of ordered) out = out.slice(0, s.start) + s.text + out.slice(s.end);
  return out;
}

/** The new text must parse to the old values with exactly this edit of the mapping at `path`. */
function verify(
  doc: Document.Parsed,
  next: string,
  path: readonly string[],
  edit: MapEdit,
  refuse: Refuse,
): void {
  const after = parseDocument(next, PARSE_OPTIONS);
  const expected = doc.toJS(TO_JS) as unknown;
  let holder: unknown = expected;
  for (const key of path.slice(0, -1)) holder = (holder as PlainObject)[key];
  const last = path.at(-1) ?? "";
  const parent = holder as PlainObject;
  parent[last] = applyEdit(parent[last] as PlainObject, edit);
  if (after.errors.length > 0 || !isDeepStrictEqual(after.toJS(TO_JS), expected)) {
    refuse(
      "verify-failed",
      "the edited file would not read back as exactly the intended values, so nothing was written; edit it by hand",
    );
  }
}

// Characters YAML does not allow raw in a scalar (C0 but tab and newline, DEL, C1, BOM, surrogates).
// eslint-disable-next-line no-control-regex -- these are exactly the characters to escape
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff\ufffe\uffff\ud800-\udfff]/u;

/** A key as plain text when that reads back the same, else double-quoted. */
function renderKey(key: string, flow: boolean): string {
  return plainReadsBack(key, flow) ? key : doubleQuoted(key);
}

/**
 * A value as YAML: numbers and booleans as they are, text in the style of the value it replaces
 * where that style can hold it (single or double quotes, plain), else plain when that reads back
 * as the same text, else double-quoted.
 */
export function renderValue(value: EditValue, flow: boolean, style: Scalar.Type | undefined): string {
  if (typeof value !== "string") return String(value);
  if (style === "QUOTE_SINGLE" && !/[\r\n]/.test(value) && !UNPRINTABLE.test(value)) {
    return `'${value.replaceAll("'", "''")}'`;
  }
  if (style !== "QUOTE_DOUBLE" && plainReadsBack(value, flow)) return value;
  return doubleQuoted(value);
}

function plainReadsBack(value: string, flow: boolean): boolean {
  if (value === "" || value !== value.trim() || /[\r\n\t]/.test(value) || UNPRINTABLE.test(value))
    return false;
  if (flow && /[,[\]{}]/.test(value)) return false;
  try {
    const block: unknown = parse(`k: ${value}\n`);
    const inFlow: unknown = parse(`{ k: ${value} }\n`);
    return isDeepStrictEqual(block, { k: value }) && isDeepStrictEqual(inFlow, { k: value });
  } catch {
    return false;
  }
}

/** JSON's string syntax is YAML's double-quoted style; YAML also wants these escaped. */
function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(
    new RegExp(UNPRINTABLE.source, "gu"),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
