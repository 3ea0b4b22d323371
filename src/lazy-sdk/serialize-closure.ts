// @pulumi/pulumi's runtime/closure/serializeClosure.js, loaded on its first call (register.ts).
import { lazyModule } from "./lazy-module";

export = lazyModule("runtime/closure/serializeClosure.js");
