/**
 * Text from the platform (titles, names, branches, deployers, lock messages, links, log lines) is
 * data from a stranger: anyone who can name a branch or title a deployment writes it. Every
 * renderer turns it into text for its medium here, one function per medium, so that it reads as
 * text there and can never act: no terminal escape sequence, no line break in a YAML comment or a
 * commit subject, no HTML element, link or mention in Markdown or chat, no link with a scheme other
 * than https or http. Our own words and the links we build are the renderer's, around these.
 *
 * Imports nothing: every layer that renders (importer, notify, observe, edit, cli) may use it.
 */

/**
 * Control characters as every medium sees them: C0, DEL, C1, the Unicode line and paragraph
 * separators (YAML 1.1 and some terminals break lines on them) and the bidirectional overrides and
 * isolates (which make a line read differently from what it holds).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this module finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** True when `text` holds a control character of any kind (tab and line feed included). */
export function hasControl(text: string): boolean {
  return new RegExp(CONTROL.source).test(text);
}

/** `^[` for ESC, `^?` for DEL, `^[[` for the C1 CSI (as ESC [), `<U+202E>` for the others. */
function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return "^?";
  if (code <= 0x9f) return `^[${String.fromCharCode(code - 0x40)}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * One line for a terminal: every control character (line breaks and tabs too) shown visibly in
 * caret notation (`ESC[2J` prints as `^[[2J`), so nothing the platform wrote is interpreted by
 * the terminal. For table cells, headings and messages that name platform values.
 */
export function terminalText(text: string): string {
  return text.replace(CONTROL, visible);
}

/**
 * A multi-line value (a log) for a terminal: split into its lines (LF or CRLF), each made safe
 * as `terminalText` does except that a tab stays a tab (it moves the cursor right and nothing
 * else). The caller prints the lines one by one.
 */
export function terminalLines(text: string | readonly string[]): string[] {
  const lines = typeof text === "string" ? text.split(/\r?\n/) : text.flatMap((l) => l.split(/\r?\n/));
  return lines.map((line) => line.replace(CONTROL, (c) => (c === "\t" ? c : visible(c))));
}

/**
 * One line with no control character, for a YAML comment or a commit message: tabs and line
 * breaks become a space, every other control character is removed.
 */
export function oneLineText(text: string): string {
  return text.replace(CONTROL, (c) => (/[\t\n\v\f\r\u2028\u2029]/.test(c) ? " " : ""));
}

/**
 * The Markdown characters that act inside a line: HTML (`<`, `>`, `&` entities), emphasis and
 * strike-through, code, links and images (`[`), table cells, math (`$`), and the backslash.
 */
const MARKDOWN_INLINE = /[\\`*_[\]<>&|~$]/g;
/** Backslash escapes for one line of platform text in CommonMark (Markdown, Teams' subset). */
function commonMarkEscaped(line: string): string {
  return (
    line
      .replace(MARKDOWN_INLINE, (c) => `\\${c}`)
      // What makes a line a heading, list item or thematic break when it starts it (`>` and `*`
      // are escaped above).
      .replace(/^([#+=-])/, "\\$1")
      .replace(/^(\d{1,9})([.)])(?=\s|$)/, "$1\\$2")
  );
}

/**
 * Platform text inside our Markdown (a summary, a pull-request comment): one line whose Markdown
 * characters are backslash-escaped, so no HTML element or entity, emphasis, link, image, heading,
 * list or table cell boundary can come of it. A word joiner (U+2060, invisible) follows each `@`
 * (no `@name` mention, no e-mail autolink), each `/` before another `/` and `www` before `.` (no
 * URL autolink, with a scheme or protocol-relative: links are ours). Leading and trailing spaces are dropped (indented text would be a
 * code block).
 */
export function markdownText(text: string): string {
  return commonMarkEscaped(oneLineText(text).trim())
    .replace(/@/g, "\\@\u2060")
    .replace(/\/(?=\/)/g, "/\u2060")
    .replace(/(www)(?=\.)/gi, "$1\u2060");
}

/**
 * A platform URL in our Markdown: an autolink (`<https://…>`, the URL its own text, so the text
 * cannot claim another place) when it is http(s), with `|` percent-encoded so it cannot end a
 * table cell; otherwise the URL as text (`markdownText`).
 */
export function markdownUrl(url: string): string {
  const href = httpUrl(url);
  return href === null ? markdownText(url) : `<${href.replace(/\|/g, "%7C")}>`;
}

/**
 * Platform text in a Markdown code span (a sha, a ref): shown literally in a monospace font. The
 * fence is one backtick longer than the longest run of backticks in the text, so the text cannot
 * close it; the text is one line.
 */
export function markdownCode(text: string): string {
  const line = oneLineText(text);
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  // A space on both sides when the text starts or ends with a backtick or is all spaces (CommonMark
  // strips one space on each side then).
  const pad = /^`|`$|^ *$/.test(line) ? " " : "";
  return `${fence}${pad}${line}${pad}${fence}`;
}

/**
 * Platform text in a Slack mrkdwn field: `&`, `<` and `>` escaped (Slack's rule for text a bot
 * did not write), so no `<url|text>` link, `<!channel>` or `<@U…>` mention can form; control
 * characters removed, a line break kept only where `multiLine` says the value has lines.
 */
export function mrkdwnText(text: string, options: { multiLine?: boolean } = {}): string {
  const lines = options.multiLine === true ? text.split(/\r?\n/) : [text];
  return lines
    .map((l) => oneLineText(l))
    .join("\n")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/**
 * A Slack link whose text is ours: `<url|label>` when `url` is http(s) (its `|` percent-encoded so
 * it cannot start the link text, its `&` escaped); otherwise the label and the URL as text.
 */
export function slackLink(url: string, label: string): string {
  const href = httpUrl(url);
  if (href === null) return `${mrkdwnText(label)}: ${mrkdwnText(url)}`;
  return `<${href.replace(/\|/g, "%7C").replace(/&/g, "&amp;")}|${mrkdwnText(label)}>`;
}

/**
 * Platform text in a Teams Adaptive Card's TextBlock or FactSet (a CommonMark subset: emphasis,
 * lists, links): its characters backslash-escaped as in `markdownText`, control characters removed,
 * a line break kept only where `multiLine` says the value has lines.
 */
export function teamsText(text: string, options: { multiLine?: boolean } = {}): string {
  const lines = options.multiLine === true ? text.split(/\r?\n/) : [text];
  // Each line trimmed: an indented line would be a code block.
  return lines.map((l) => commonMarkEscaped(oneLineText(l).trim())).join("\n");
}

/** Platform text in HTML, as element content or a quoted attribute value. */
export function htmlText(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * The URL to use as a link when the platform's `text` is an absolute `https:` or `http:` URL (in
 * its parsed, percent-encoded form), else null: the caller shows the text as text. A
 * `javascript:`, `data:` or `file:` link, or anything that is not a URL, is never clickable.
 */
export function httpUrl(text: string): string | null {
  if (hasControl(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
}
