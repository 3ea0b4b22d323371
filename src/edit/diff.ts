/** A unified diff of one edit, for a terminal: the changed lines with three lines around them. */

const CONTEXT = 3;

/** The lines of the changed middle as ` `, `-` and `+` lines (a longest common subsequence). */
function middle(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const common: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = common[i] ?? [];
      row[j] =
        a[i] === b[j]
          ? (common[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(common[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i++] ?? ""}`);
      j++;
    } else if (j < m && (i === n || (common[i]?.[j + 1] ?? 0) >= (common[i + 1]?.[j] ?? 0))) {
      out.push(`+${b[j++] ?? ""}`);
    } else {
      out.push(`-${a[i++] ?? ""}`);
    }
  }
  // Removed lines first, then added ones, within each run of changes (as git shows them).
  const sorted: string[] = [];
  let run: string[] = [];
  for (const line of [...out, " "]) {
    if (line.startsWith(" ")) {
      sorted.push(...run.filter((l) => l.startsWith("-")), ...run.filter((l) => l.startsWith("+")));
      run = [];
      sorted.push(line);
    } else {
      run.push(line);
    }
  }
  return sorted.slice(0, -1);
}

/** `--- a/FILE` / `+++ b/FILE` and one hunk around the changed lines; empty when nothing changed. */
export function unifiedDiff(file: string, before: string, after: string): string {
  if (before === after) return "";
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const from = Math.max(0, head - CONTEXT);
  const aEnd = Math.min(a.length, a.length - tail + CONTEXT);
  const bEnd = Math.min(b.length, b.length - tail + CONTEXT);
  const lines = [
    ...a.slice(from, head).map((l) => ` ${l}`),
    ...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail, aEnd).map((l) => ` ${l}`),
  ];
  const range = (start: number, end: number) => `${start + 1},${end - start}`;
  return [
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -${range(from, aEnd)} +${range(from, bEnd)} @@`,
    ...lines,
  ].join("\n");
}
