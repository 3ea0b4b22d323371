/**
 * The error of both processes' own failures: a stable code and a message that never carries a
 * token. A ProviderError is a decision of ours (a lock that stays, invalid inputs, a refusal of
 * the platform, a bound that passed): the user reads its message alone, never a stack trace. Any
 * other error that reaches the engine is a bug and is shown with its trace behind {@link BUG_LINE}.
 */

/** Brand checked by {@link ProviderError.isInstance}; survives two copies of this module. */
const BRAND: unique symbol = Symbol.for("stackwright.providers.ProviderError");

/** A provider failure with a stable code. */
export class ProviderError extends Error {
  readonly [BRAND] = true;
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProviderError";
    this.code = code;
  }
  /** True for any ProviderError, even from another copy of the module. */
  static isInstance(value: unknown): value is ProviderError {
    return typeof value === "object" && value !== null && BRAND in value && value[BRAND] === true;
  }
}

/** A refusal we make on purpose (locks, invalid inputs, bounds): shown as its message alone. */
export function refusal(message: string, options?: { cause?: unknown }): ProviderError {
  return new ProviderError("STACKWRIGHT_REFUSED", message, options);
}

/** The line in front of the trace of an error nobody meant to raise (README, "Reporting a bug"). */
export const BUG_LINE =
  "stackwright: this is a bug in Stackwright, not in your settings; please report it with the lines below " +
  '(see README.md, "Reporting a bug")';
