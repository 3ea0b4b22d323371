/**
 * The emulator as a company network puts the API: behind a TLS front whose certificate a private
 * CA signs (`api.stackwright.test`, and `files.stackwright.test` for the links it answers with)
 * and reachable only through a forward proxy, which alone resolves those names. `env` holds what
 * a user sets there (the proxy variables in lower case, as many runners set them and the only case
 * gRPC for Node reads, and the CA, and a secrets passphrase of its own: an API off this machine is
 * not the demo's, so the built-in passphrase does not serve it); `close` stops all of it.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_SEED_PATH, startEmulator, type RunningEmulator } from "../../src/emulator";
import { startForwardProxy, type ForwardProxy } from "./forward-proxy";
import { makeTestCa, startTlsFront, type TestCa, type TlsFront } from "./test-tls";

export interface BehindProxy {
  readonly ca: TestCa;
  readonly front: TlsFront;
  readonly emulator: RunningEmulator;
  readonly proxy: ForwardProxy;
  /** The API's URL as users behind the proxy name it. */
  readonly apiUrl: string;
  /** The proxy and CA variables, and the passphrase (drawn for this run). */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts it all; `hosts` adds names only the proxy resolves (e.g. an S3 endpoint's). */
export async function startBehindProxy(hosts: Record<string, string> = {}): Promise<BehindProxy> {
  const ca = makeTestCa(["api.stackwright.test", "files.stackwright.test"]);
  const front = await startTlsFront(ca);
  const emulator = await startEmulator({
    seed: DEFAULT_SEED_PATH,
    speed: "instant",
    publicUrl: "https://files.stackwright.test",
  });
  front.forwardTo(Number(new URL(emulator.url).port));
  const proxy = await startForwardProxy({
    hosts: {
      "api.stackwright.test": "127.0.0.1",
      "files.stackwright.test:443": `127.0.0.1:${front.port}`,
      ...hosts,
    },
  });
  return {
    ca,
    front,
    emulator,
    proxy,
    apiUrl: `https://api.stackwright.test:${front.port}`,
    env: {
      https_proxy: proxy.url,
      http_proxy: proxy.url,
      NODE_EXTRA_CA_CERTS: ca.caFile,
      PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
    },
    async close() {
      await proxy.close();
      await emulator.close();
      await front.close();
      ca.remove();
    },
  };
}

/**
 * Makes `projectDir`'s `dev` target a company's: its settings file names the API behind the proxy
 * and holds no secret sealed with the built-in passphrase (the token comes from the variables), so
 * the engine seals what it writes with the passphrase of {@link BehindProxy.env}.
 */
export function settingsBehindProxy(projectDir: string, behind: Pick<BehindProxy, "apiUrl">): void {
  fs.writeFileSync(
    path.join(projectDir, "Pulumi.dev.yaml"),
    `config:\n  stackwright:apiUrl: ${behind.apiUrl}\n`,
  );
}
