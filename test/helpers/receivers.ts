/**
 * Real HTTP receivers for notification tests, on 127.0.0.1: a plain recorder that answers as
 * scripted (a status with headers, a connection reset, or never), and Slack- and Teams-shaped
 * ones that check the documented message format and answer 400 with the reason when it is wrong.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

/** One request as received: the raw body and the headers (lower-case names). */
export interface Received {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** What the receiver answered (0: reset or no answer). */
  readonly status: number;
}

/** What the receiver does with a request. */
export type Answer = { status: number; headers?: Record<string, string> } | "reset" | "hang";

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** The answers of the next requests, in order; after them, `fallback`. */
  script(...answers: Answer[]): void;
  close(): Promise<void>;
}

/**
 * Starts a receiver. `check` (the Slack or Teams shape) returns a reason to refuse a body; a
 * refused body is answered 400 with it, as those services do.
 */
export async function startReceiver(
  options: { fallback?: Answer; check?: (body: unknown) => string | undefined; path?: string } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const queue: Answer[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
      );
      const answer = queue.shift() ?? options.fallback ?? { status: 200 };
      const record = (status: number) => received.push({ path: req.url ?? "", headers, body, status });
      if (answer === "reset") {
        record(0);
        req.socket.destroy();
        return;
      }
      if (answer === "hang") {
        record(0);
        hanging.add(res);
        return;
      }
      let status = answer.status;
      let text = "ok";
      if (options.check !== undefined && status < 300) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          parsed = undefined;
        }
        const problem = parsed === undefined ? "body is not JSON" : options.check(parsed);
        if (problem !== undefined) {
          status = 400;
          text = problem;
        }
      }
      record(status);
      res.writeHead(status, { "content-type": "text/plain", ...(answer.headers ?? {}) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? "/hook"}`,
    received,
    script: (...answers) => void queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Slack's incoming-webhook format: a `text` fallback and known blocks within Slack's limits. */
export function slackProblem(body: unknown): string | undefined {
  if (!isObject(body)) return "invalid_payload";
  if (typeof body["text"] !== "string" || body["text"] === "") return "no_text";
  const blocks = body["blocks"];
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) return "invalid_blocks";
  for (const block of blocks) {
    if (!isObject(block)) return "invalid_blocks";
    const text = block["text"];
    switch (block["type"]) {
      case "header":
        if (!isObject(text) || text["type"] !== "plain_text" || typeof text["text"] !== "string")
          return "invalid_blocks";
        if (text["text"].length > 150) return "invalid_blocks: header too long";
        break;
      case "section": {
        const fields = block["fields"];
        if (text === undefined && fields === undefined) return "invalid_blocks: empty section";
        if (text !== undefined) {
          if (!isObject(text) || !["mrkdwn", "plain_text"].includes(String(text["type"])))
            return "invalid_blocks";
          if (typeof text["text"] !== "string" || text["text"].length > 3000) return "invalid_blocks: text";
        }
        if (fields !== undefined) {
          if (!Array.isArray(fields) || fields.length > 10) return "invalid_blocks: fields";
          for (const f of fields) {
            if (!isObject(f) || typeof f["text"] !== "string" || f["text"].length > 2000)
              return "invalid_blocks: field";
          }
        }
        break;
      }
      case "context": {
        const elements = block["elements"];
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 10)
          return "invalid_blocks: context";
        break;
      }
      default:
        return `invalid_blocks: unknown type ${String(block["type"])}`;
    }
  }
  return undefined;
}

/** A Teams webhook message with one Adaptive Card. */
export function teamsProblem(body: unknown): string | undefined {
  if (!isObject(body) || body["type"] !== "message") return "type must be message";
  const attachments = body["attachments"];
  if (!Array.isArray(attachments) || attachments.length !== 1) return "one attachment expected";
  const attachment: unknown = attachments[0];
  if (!isObject(attachment) || attachment["contentType"] !== "application/vnd.microsoft.card.adaptive") {
    return "contentType must be application/vnd.microsoft.card.adaptive";
  }
  const card = attachment["content"];
  if (!isObject(card) || card["type"] !== "AdaptiveCard" || typeof card["version"] !== "string") {
    return "content must be an AdaptiveCard with a version";
  }
  const body2 = card["body"];
  if (!Array.isArray(body2) || body2.length === 0) return "card body is empty";
  for (const element of body2) {
    if (!isObject(element)) return "card element is not an object";
    if (element["type"] === "TextBlock" && typeof element["text"] !== "string")
      return "TextBlock without text";
    if (element["type"] === "FactSet") {
      const facts = element["facts"];
      if (!Array.isArray(facts)) return "FactSet without facts";
      for (const f of facts) {
        if (!isObject(f) || typeof f["title"] !== "string" || typeof f["value"] !== "string")
          return "bad fact";
      }
    }
    if (!["TextBlock", "FactSet"].includes(String(element["type"])))
      return `unexpected element ${String(element["type"])}`;
  }
  const actions = card["actions"];
  if (actions !== undefined) {
    if (!Array.isArray(actions)) return "actions must be a list";
    for (const a of actions) {
      if (!isObject(a) || a["type"] !== "Action.OpenUrl" || typeof a["url"] !== "string") return "bad action";
    }
  }
  return undefined;
}
