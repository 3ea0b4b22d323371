/**
 * The exports of a module of @pulumi/pulumi that is loaded only when one of its functions is
 * first called: an object whose every property is a function that loads the real module (`load`,
 * src/module-stand-in.ts) and calls the function of that name with the same arguments.
 */
import type { RealExports } from "../module-stand-in";

export function lazyFunctions(filename: string, load: () => RealExports): Readonly<Record<string, unknown>> {
  return new Proxy(
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
}
