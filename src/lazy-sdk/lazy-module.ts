/**
 * A module of @pulumi/pulumi that is loaded only when one of its functions is first called: an
 * object whose every property is a function that loads the real module and calls the function
 * of that name with the same arguments. It stands in the module cache under the real module's
 * file name (register.ts), so loading the real one takes that entry out first; the real module
 * then holds it for every later require.
 */
import { createRequire } from "node:module";

const requireHere = createRequire(__filename);

export function lazyModule(filename: string): Readonly<Record<string, unknown>> {
  let real: Readonly<Record<string, unknown>> | undefined;
  const load = (): Readonly<Record<string, unknown>> => {
    if (real === undefined) {
      if (requireHere.cache[filename]?.exports === standIn) delete requireHere.cache[filename];
      real = requireHere(filename) as Readonly<Record<string, unknown>>;
    }
    return real;
  };
  const standIn: Readonly<Record<string, unknown>> = new Proxy(
    {},
    {
      get(_target, key) {
        if (typeof key !== "string") return undefined;
        return (...args: unknown[]): unknown => {
          const fn = load()[key];
          if (typeof fn !== "function")
            throw new TypeError(`@pulumi/pulumi's ${filename} has no function ${key}`);
          return Reflect.apply(fn, undefined, args);
        };
      },
    },
  );
  return standIn;
}
