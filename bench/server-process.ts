/**
 * Starts a bench server in a child process (see emulator-server-child.ts), so the bench process
 * only generates load or measures the client. Works from the sources and from dist/.
 */
import { type StdioOptions, fork } from "node:child_process";
import { resolve } from "node:path";
import type { Speed } from "../src/emulator";

/** A server in a child process; `close()` disconnects it and resolves once it has exited. */
export interface ServerProcess {
  url: string;
  close(): Promise<void>;
}

/**
 * Forks the emulator (demo seed, at `speed`, in memory or on `stateFile`) or the bare Fastify
 * baseline, and resolves with its URL once it listens.
 */
export async function startServerProcess(
  kind: "emulator" | "bare",
  speed: Speed,
  stateFile?: string,
): Promise<ServerProcess> {
  const fromSources = __filename.endsWith(".ts");
  const entry = resolve(__dirname, fromSources ? "emulator-server-child.ts" : "emulator-server-child.js");
  const args = [kind, speed, ...(stateFile === undefined ? [] : [stateFile])];
  const stdio: StdioOptions = ["ignore", "ignore", "inherit", "ipc"];
  const child = fromSources
    ? fork(resolve(__dirname, "../test/helpers/run-ts.cjs"), [entry, ...args], { stdio })
    : fork(entry, args, { stdio });
  const url = await new Promise<string>((done, fail) => {
    child.once("message", (message) => done((message as { url: string }).url));
    child.once("exit", (code) => fail(new Error(`bench: ${kind} server exited with ${String(code)}`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((done) => {
        child.once("exit", () => done());
        child.disconnect();
      }),
  };
}
