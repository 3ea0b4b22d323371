/**
 * HTTP Basic credentials (spec §5). The header value is kept in a private field and never
 * exposed through enumeration, JSON or `util.inspect`, because the token is recoverable from it.
 */
import { inspect } from "node:util";
import { InvalidOptionsError } from "./errors";

/** Holds the `Authorization` value; prints as `Credentials { email, token: [redacted] }`. */
export class Credentials {
  readonly #authorization: string;
  /** The login (e-mail); not secret, shown in logs to say who called. */
  readonly email: string;

  constructor(email: string, token: string) {
    if (email.includes(":")) {
      // Basic auth splits at the first colon: an e-mail with one would be cut.
      throw new InvalidOptionsError("[email] must not contain ':'");
    }
    this.email = email;
    this.#authorization = `Basic ${Buffer.from(`${email}:${token}`, "utf8").toString("base64")}`;
  }

  /** The `Authorization` header value. Only the HTTP layer calls this, to build headers. */
  authorization(): string {
    return this.#authorization;
  }

  toJSON(): Record<string, string> {
    return { email: this.email, token: "[redacted]" };
  }

  [inspect.custom](): string {
    return `Credentials { email: ${JSON.stringify(this.email)}, token: [redacted] }`;
  }
}
