/**
 * TLS failures told apart from other network failures: a certificate the process does not trust
 * is a setting to change (the CA bundle), not a flaky network, so it is never retried and its
 * message says what to set. Verification is never turned off anywhere in Stackwright.
 */
import { ConnectionError } from "./errors";
import { codeOf, propertyOf } from "./property";

/** The variable that adds a private CA to Node's trust store (read when a Node process starts). */
export const EXTRA_CA_VARIABLE = "NODE_EXTRA_CA_CERTS";

const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_CHAIN_TOO_LONG",
  "INVALID_CA",
]);
const EXPIRED = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID", "CERT_REVOKED"]);
const WRONG_NAME = new Set(["ERR_TLS_CERT_ALTNAME_INVALID", "HOSTNAME_MISMATCH"]);

/** A TLS failure: its code and what it means, completing "TLS to HOST failed: ...". */
export interface TlsProblem {
  readonly code: string;
  readonly reason: string;
}

/** The TLS problem behind a thrown transport error (or its causes), or undefined. */
export function tlsProblem(error: unknown): TlsProblem | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = codeOf(current);
    if (code !== undefined) {
      if (UNTRUSTED.has(code)) {
        return {
          code,
          reason: `its certificate is not signed by a CA this process trusts (${code}); if a private CA signs it, set ${EXTRA_CA_VARIABLE} to that CA's PEM file`,
        };
      }
      if (EXPIRED.has(code)) {
        return { code, reason: `its certificate is expired, not yet valid or revoked (${code}); renew it` };
      }
      if (WRONG_NAME.has(code)) {
        return {
          code,
          reason: `its certificate is not for this host name (${code}); use the name the certificate was issued for`,
        };
      }
      if (code.startsWith("ERR_SSL_") || code === "EPROTO") {
        return {
          code,
          reason: `the TLS handshake failed (${code}); check that the URL's port speaks TLS`,
        };
      }
    }
    current = propertyOf(current, "cause");
  }
  return undefined;
}

/**
 * The error of a request whose TLS handshake with `origin` failed, or undefined when `thrown` is
 * no TLS failure. Never retried: the same certificate fails the same way.
 */
export function tlsError(
  method: string,
  path: string,
  origin: string,
  thrown: unknown,
): ConnectionError | undefined {
  const problem = tlsProblem(thrown);
  if (problem === undefined) return undefined;
  return new ConnectionError(`${method} ${path}: TLS to ${hostOf(origin)} failed: ${problem.reason}`, {
    method,
    path,
    requestSent: false,
    cause: thrown,
  });
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}
