/**
 * One edit per leaf field of a JSON schema (the stack file's, from src/config): for tests that must
 * show something reacts to a change of every field, generated from the schema rather than picked
 * by hand, so a field added later is covered without touching the test.
 */

/** Set the value at `path` (numbers index arrays) of a copy of the document. */
export interface LeafEdit {
  readonly path: ReadonlyArray<string | number>;
  readonly value: unknown;
}

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

function field(value: unknown, key: string | number): unknown {
  if (Array.isArray(value) && typeof key === "number") return value[key];
  return isSchema(value) ? value[String(key)] : undefined;
}

/** A value of the leaf's type that differs from `current`. */
function changedLeaf(schema: Schema, current: unknown): unknown {
  const options = Array.isArray(schema["enum"]) ? schema["enum"] : undefined;
  if (options !== undefined) return options.find((o) => o !== current) ?? `${String(current)}-changed`;
  switch (schema["type"]) {
    case "boolean":
      return typeof current === "boolean" ? !current : schema["default"] !== true;
    case "number":
    case "integer":
      return typeof current === "number" ? current + 1 : 7;
    default:
      return typeof current === "string" ? `${current}-changed` : "changed";
  }
}

/** Every leaf of `schema`, with a changed value for it in `document`. */
export function schemaLeafEdits(schema: Schema, document: unknown): LeafEdit[] {
  const edits: LeafEdit[] = [];
  const walk = (node: Schema, path: Array<string | number>, current: unknown) => {
    const alternatives = Array.isArray(node["anyOf"]) ? node["anyOf"].filter(isSchema) : [];
    const shape = alternatives.find((a) => isSchema(a["properties"]) || a["type"] === "array") ?? node;
    const properties = shape["properties"];
    const additional = shape["additionalProperties"];
    const items = shape["items"];
    if (isSchema(properties) || isSchema(additional)) {
      for (const [key, child] of Object.entries(isSchema(properties) ? properties : {})) {
        if (isSchema(child)) walk(child, [...path, key], field(current, key));
      }
      if (isSchema(additional)) {
        // A map (environments, snapshots, ...): its entries as the document has them, or a new one.
        const keys = isSchema(current) ? Object.keys(current) : [];
        for (const key of keys.length > 0 ? keys : ["added"])
          walk(additional, [...path, key], field(current, key));
      }
      return;
    }
    if (shape["type"] === "array" && isSchema(items)) {
      walk(items, [...path, 0], field(current, 0));
      return;
    }
    edits.push({ path, value: changedLeaf(alternatives[0] ?? node, current) });
  };
  walk(schema, [], document);
  return edits;
}

/** A copy of `document` with the edit applied (missing maps and arrays created on the way). */
export function applyEdit(document: unknown, edit: LeafEdit): unknown {
  const root: unknown = structuredClone(document);
  const set = (container: unknown, path: ReadonlyArray<string | number>): unknown => {
    const [key, ...rest] = path;
    if (key === undefined) return edit.value;
    const next = rest[0];
    const holder: Record<string, unknown> | unknown[] = Array.isArray(container)
      ? container
      : isSchema(container)
        ? container
        : typeof key === "number"
          ? []
          : {};
    const child = field(holder, key) ?? (typeof next === "number" ? [] : next === undefined ? undefined : {});
    if (Array.isArray(holder) && typeof key === "number") holder[key] = set(child, rest);
    else if (!Array.isArray(holder)) holder[String(key)] = set(child, rest);
    return holder;
  };
  return set(root, edit.path);
}
