/**
 * What a stranger who names a branch, titles a deployment or sets a deployer's name on the
 * platform could write: terminal escapes, HTML, Markdown, Slack mrkdwn, odd URLs and long strings,
 * mixed with random text. For the property tests of src/safe-text and of the renderers.
 */
import fc from "fast-check";

export const HOSTILE_FRAGMENTS = [
  "\u001b[2J",
  "\u001b]0;owned\u0007",
  "\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\",
  "\u001b]52;c;cm0gLXJmIC8=\u0007",
  "\u009b31m",
  "\r",
  "\n",
  "\t",
  "\u0000",
  "\u202e",
  "\u2028",
  "<script>alert(1)</script>",
  '<img src="https://evil.example/x.png">',
  "<a href=javascript:alert(1)>x</a>",
  "&lt;b&gt;",
  "![x](https://evil.example/x.png)",
  "[click](javascript:alert(1))",
  "**bold** _it_ ~~s~~ `code` ```",
  "# heading",
  "- item",
  "1. item",
  "    indented",
  "| a | b |",
  "<!channel>",
  "<!here|here>",
  "<@U123ABC>",
  "<https://evil.example/x|*URGENT* approve here>",
  "@channel @admin x@evil.example",
  "https://evil.example/x|*URGENT* approve here: https://evil.example/login> <!channel",
  "www.evil.example",
  "javascript:alert(document.domain)//",
  "data:text/html,<script>alert(1)</script>",
  "$x^2$",
  "\\",
  "&",
  "acme-web",
] as const;

/** A string built of hostile fragments and random text. */
export const hostileText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_FRAGMENTS) },
      { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
      { weight: 2, arbitrary: fc.string() },
      { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 2000 }) },
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));

/** A link as the platform might give it: a real https URL, one with a tail, or any other scheme. */
export const hostileUrl: fc.Arbitrary<string> = fc.oneof(
  fc.webUrl(),
  fc.webUrl().map((u) => `${u}|*URGENT* approve here> <!channel`),
  fc.constantFrom(
    "javascript:alert(document.domain)//",
    "data:text/html,x",
    "file:///etc/passwd",
    "//evil.example/x",
  ),
  hostileText,
);

/** Every string a Slack message shows as mrkdwn (the fallback text and each mrkdwn element). */
export function mrkdwnTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) mrkdwnTexts(v, out);
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record["text"] === "string" && record["type"] !== "plain_text") out.push(record["text"]);
    for (const v of Object.values(record)) mrkdwnTexts(v, out);
  }
  return out;
}
