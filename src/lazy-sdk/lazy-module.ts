/**
 * A module of @pulumi/pulumi that is loaded only when one of its functions is first called: an
 * object whose every property is a function that loads the real module (by its path in the
 * installed SDK) and calls the function of that name with the same arguments.
 */
import { createRequire } from "node:module";
import * as path from "node:path";

const requireHere = createRequire(__filename);

/** The installed SDK's directory (the package has no `exports` map, so each of its files loads by path). */
function sdkDirectory(): string {
  return path.dirname(requireHere.resolve("@pulumi/pulumi/package.json"));
}

export function lazyModule(file: string): Readonly<Record<string, unknown>> {
  let real: Readonly<Record<string, unknown>> | undefined;
  const load = (): Readonly<Record<string, unknown>> => {
    real ??= requireHere(path.join(sdkDirectory(), file)) as Readonly<Record<string, unknown>>;
    return real;
  };
  return new Proxy(
    {},
    {
      get(_target, key) {
        if (typeof key !== "string") return undefined;
        return (...args: unknown[]): unknown => {
          const fn = load()[key];
          if (typeof fn !== "function")
            throw new TypeError(`@pulumi/pulumi's ${file} has no function ${key}`);
          return Reflect.apply(fn, undefined, args);
        };
      },
    },
  );
}
