/** A stored object's text as JSON, or undefined when it is not JSON (a torn or foreign object). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
