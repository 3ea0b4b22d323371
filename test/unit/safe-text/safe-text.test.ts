import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import {
  hasControl,
  htmlText,
  httpUrl,
  markdownCode,
  markdownText,
  markdownUrl,
  mrkdwnText,
  oneLineText,
  slackLink,
  teamsText,
  terminalLines,
  terminalText,
} from "../../../src/safe-text";
import { prefixedLines, renderTable } from "../../../src/cli/kit/output";
import { hostileText } from "../../helpers/hostile-text";

const hostile = hostileText;

// eslint-disable-next-line no-control-regex -- control characters are exactly what no output may hold
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what no output may hold
const CONTROL_BUT_LINE_FEED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const markdown = new MarkdownIt({ html: true, linkify: true });

/** The HTML markdown-it makes of one paragraph, without the paragraph itself. */
function paragraphInside(source: string): string {
  const html = markdown.render(source);
  if (html === "") return "";
  expect(html.startsWith("<p>") && html.endsWith("</p>\n")).toBe(true);
  return html.slice(3, -5);
}

describe("platform text made safe per medium", () => {
  it("shows every control character of a terminal line visibly, never as the character", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = terminalText(text);
        expect(hasControl(out)).toBe(false);
        expect(CONTROL.test(out)).toBe(false);
      }),
    );
    expect(terminalText("a\u001b[2Jb\u009b1m\u0007")).toBe("a^[[2Jb^[[1m^G");
  });

  it("splits a log into lines that keep their tabs and show every other control character", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        for (const line of terminalLines(text)) expect(CONTROL.test(line.replace(/\t/g, ""))).toBe(false);
      }),
    );
    expect(terminalLines("one\r\ntwo\tthree\u001b]0;x\u0007")).toEqual(["one", "two\tthree^[]0;x^G"]);
  });

  it("keeps text without control characters as it is in a terminal and in one line", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!hasControl(text));
        expect(terminalText(text)).toBe(text);
        expect(oneLineText(text)).toBe(text);
      }),
    );
  });

  it("makes one line with no control character for a YAML comment or a commit message", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = oneLineText(text);
        expect(hasControl(out)).toBe(false);
      }),
    );
    expect(oneLineText("fix\nowned\u001b[2J")).toBe("fix owned[2J");
  });

  it("renders Markdown text as one paragraph of text: no element, link, image or mention", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const inside = paragraphInside(markdownText(text));
        expect(inside).not.toMatch(/</);
        // Every @ is followed by a word joiner, every // and www. is broken by one.
        expect(inside).not.toMatch(/@(?!\u2060)/);
        expect(inside).not.toMatch(/\/\/|www\./i);
      }),
    );
  });

  it("renders a Markdown code span as one code element holding the text", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const inside = paragraphInside(markdownCode(text));
        expect(inside).toMatch(/^<code>[^<]*<\/code>$/);
      }),
    );
  });

  it("leaves no link, mention or special command in Slack mrkdwn text", () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (text, multiLine) => {
        const out = mrkdwnText(text, { multiLine });
        expect(out).not.toMatch(/[<>]/);
        expect(out).not.toMatch(/&(?!amp;|lt;|gt;)/);
        expect(hasControl(out.replace(/\n/g, ""))).toBe(false);
        if (!multiLine) expect(out).not.toContain("\n");
      }),
    );
  });

  it("makes a Slack link only of an http(s) URL, with our text and nothing after it", () => {
    fc.assert(
      fc.property(hostile, (url) => {
        const out = slackLink(url, "Deployment");
        if (out.startsWith("<")) {
          expect(out).toMatch(/^<https?:\/\/[^|<>\s]+\|Deployment>$/);
          expect(httpUrl(url)).not.toBeNull();
        } else {
          expect(out).not.toMatch(/[<>]/);
        }
      }),
    );
    expect(
      slackLink(
        "https://evil.example/x|*URGENT* approve here: https://evil.example/login> <!channel",
        "Deployment",
      ),
    ).toMatch(/^<https:\/\/evil\.example\/x%7C[^|<>\s]+\|Deployment>$/);
  });

  it("leaves no formatting, list or link in Teams card text", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const html = new MarkdownIt({ html: false, linkify: false }).render(teamsText(text));
        // Paragraphs only (and line breaks): no emphasis, list, heading, link, image or code.
        expect(html.replace(/<\/?p>|<br>/g, "")).not.toMatch(/</);
      }),
    );
  });

  it("escapes HTML so that no element or attribute can open", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = htmlText(text);
        expect(out).not.toMatch(/[<>"']/);
        expect(out).not.toMatch(/&(?!amp;|lt;|gt;|quot;|#39;)/);
      }),
    );
  });

  it("takes a platform URL as a link only when it is http or https", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostile,
          fc.webUrl(),
          fc.webUrl().map((u) => u.replace(/^https?/, "javascript")),
        ),
        (url) => {
          const href = httpUrl(url);
          if (href !== null) {
            expect(new URL(href).protocol).toMatch(/^https?:$/);
            expect(hasControl(href)).toBe(false);
          }
        },
      ),
    );
    expect(httpUrl("javascript:alert(document.domain)//")).toBeNull();
    expect(httpUrl("JaVaScRiPt:alert(1)")).toBeNull();
    expect(httpUrl("data:text/html,x")).toBeNull();
    expect(httpUrl("/relative/path")).toBeNull();
    expect(httpUrl("https://dash.example/deployments/5")).toBe("https://dash.example/deployments/5");
  });
});

describe("platform URLs in Markdown", () => {
  it("are autolinks only when http(s), and otherwise text with no link", () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.webUrl()), (url) => {
        const inside = paragraphInside(markdownUrl(url));
        const links = [...inside.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1] ?? "");
        expect(links.length).toBeLessThanOrEqual(1);
        for (const href of links) expect(href).toMatch(/^https?:\/\//);
        expect(inside.replace(/<a href="[^"]*">[^<]*<\/a>/, "")).not.toMatch(/</);
      }),
    );
  });
});

describe("the CLI's terminal writers", () => {
  it("show the control characters of the engine's stream and of table cells, keeping lines and tabs", () => {
    const written: string[] = [];
    const out = prefixedLines("[acme-web] ", { write: (text) => written.push(text) });
    out.write("warning: Drift \u001b]0;owned\u0007\tby mallory\r\nsecond\u001b[2J");
    out.flush();
    expect(written.join("")).toBe(
      "[acme-web] warning: Drift ^[]0;owned^G\tby mallory\n[acme-web] second^[[2J\n",
    );
    const table = renderTable(["TITLE", "BY"], [["Release\u001b[2J\n1.4", "ops"]]);
    expect(table).not.toMatch(CONTROL_BUT_LINE_FEED);
    expect(table.split("\n")[2]).toBe("Release^[[2J^J1.4  ops");
  });
});
