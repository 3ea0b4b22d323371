/**
 * A private CA made for one test run (with the `openssl` command), a certificate it signs for the
 * test host names and 127.0.0.1, and a TLS front: a TCP-level TLS terminator on 127.0.0.1 that
 * forwards the decrypted bytes to a plain-HTTP server (the emulator), as a company's load
 * balancer would. The CA is trusted only where a test passes `NODE_EXTRA_CA_CERTS`.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as tls from "node:tls";
import type { AddressInfo } from "node:net";

export interface TestCa {
  readonly dir: string;
  /** The CA's certificate (PEM file), for NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  readonly key: string;
  readonly cert: string;
  remove(): void;
}

/** Makes a CA and a leaf certificate for `names` (DNS names) plus 127.0.0.1 and localhost. */
export function makeTestCa(names: readonly string[]): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sw-test-ca-"));
  const at = (file: string) => path.join(dir, file);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=Stackwright Test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl(
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    "leaf.key",
    "-out",
    "leaf.csr",
    "-subj",
    `/CN=${names[0] ?? "localhost"}`,
  );
  const san = [...names.map((n) => `DNS:${n}`), "DNS:localhost", "IP:127.0.0.1"].join(",");
  fs.writeFileSync(
    at("leaf.ext"),
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  openssl(
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "leaf.pem",
    "-days",
    "2",
    "-extfile",
    "leaf.ext",
  );
  return {
    dir,
    caFile: at("ca.pem"),
    key: fs.readFileSync(at("leaf.key"), "utf8"),
    cert: fs.readFileSync(at("leaf.pem"), "utf8"),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsFront {
  readonly port: number;
  /** Sends what arrives to this port of 127.0.0.1 (set when the server behind starts later). */
  forwardTo(port: number): void;
  close(): Promise<void>;
}

/** A TLS terminator on 127.0.0.1 with the CA's leaf certificate. */
export async function startTlsFront(ca: TestCa, targetPort?: number): Promise<TlsFront> {
  let target = targetPort;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: ca.key, cert: ca.cert }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    if (target === undefined) {
      socket.destroy();
      return;
    }
    const upstream = net.connect(target, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("close", () => {
      sockets.delete(upstream);
      socket.destroy();
    });
    upstream.on("error", () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  // A client that refuses the certificate closes the handshake; that is the point of some tests.
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    port: (server.address() as AddressInfo).port,
    forwardTo: (port) => {
      target = port;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
