// @pulumi/pulumi's runtime/closure/codePaths.js, loaded on its first call (register.ts).
import { lazyModule } from "./lazy-module";

export = lazyModule("runtime/closure/codePaths.js");
