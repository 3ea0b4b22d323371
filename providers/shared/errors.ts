/** The error of both processes' own failures: a stable code and a message that never carries a token. */

/** Brand checked by {@link ProviderError.isInstance}; survives two copies of this module. */
const BRAND: unique symbol = Symbol.for("stackwright.providers.ProviderError");

/** A provider failure with a stable code. */
export class ProviderError extends Error {
  readonly [BRAND] = true;
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ProviderError";
    this.code = code;
  }
  /** True for any ProviderError, even from another copy of the module. */
  static isInstance(value: unknown): value is ProviderError {
    return typeof value === "object" && value !== null && BRAND in value && value[BRAND] === true;
  }
}
