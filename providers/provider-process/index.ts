/**
 * The path every resource's `__provider` loads: `dist/providers/provider-process/index.js`,
 * relative to the program directory (program-process/provider.ts writes that text, and states
 * written by every release hold it). It stays for them; the provider module is behaviour/'s.
 */
export { v1 } from "../behaviour";
