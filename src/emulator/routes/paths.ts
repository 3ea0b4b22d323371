import { nowUnix } from "../time";

export type StackParams = { Params: { stack: string } };
export type EnvParams = { Params: { stack: string; env: string } };
export type EnvIdParams = { Params: { stack: string; env: string; id: string } };
export type StackIdParams = { Params: { stack: string; id: string } };

/** The path of an environment's endpoints. */
export const ENV = "/svc/project/:stack/environment/:env";
/** The path of a stack's endpoints. */
export const STACK = "/svc/project/:stack";

/** `meta` of the modules and whitelist documents. */
export function serverMeta() {
  return { server_time: String(nowUnix()), status_code: 200 };
}
