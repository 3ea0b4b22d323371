import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../../src/client";
import { acquireTransport, proxySettings, shownProxy } from "../../../src/client/transport";
import { tlsProblem } from "../../../src/client/tls";

/** undici's dispatchers say whether they are closed, though their typings do not. */
const closed = (dispatcher: object): boolean => Reflect.get(dispatcher, "closed") === true;

const settings = { connectTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000, maxConnections: 2 };

describe("the proxy settings of an environment", () => {
  it("reads both cases, the lower-case variable first, and STACKWRIGHT_PROXY apart", () => {
    expect(
      proxySettings({
        HTTPS_PROXY: "http://upper:3128",
        https_proxy: "http://lower:3128",
        HTTP_PROXY: "http://plain:3128",
        NO_PROXY: ".example.com",
        STACKWRIGHT_PROXY: "direct",
      }),
    ).toEqual({
      httpsProxy: "http://lower:3128",
      httpProxy: "http://plain:3128",
      noProxy: ".example.com",
      apiProxy: "direct",
    });
    expect(proxySettings({})).toEqual({
      httpsProxy: undefined,
      httpProxy: undefined,
      noProxy: undefined,
      apiProxy: undefined,
    });
  });

  it("refuses a malformed proxy URL, naming the variable but never its value", () => {
    for (const [name, value] of [
      ["HTTPS_PROXY", "user:secret-1@proxy"],
      ["http_proxy", "ftp://user:secret-1@proxy"],
      ["STACKWRIGHT_PROXY", "not a url secret-1"],
    ] as const) {
      let caught: unknown;
      try {
        proxySettings({ [name]: value });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidOptionsError);
      expect((caught as Error).message).toContain(`[${name.toUpperCase()}]`);
      expect((caught as Error).message).not.toContain("secret-1");
    }
  });

  it("shows a proxy by scheme, host and port only", () => {
    expect(shownProxy("http://runner:p%40ss@proxy.example.com:3128/")).toBe("http://proxy.example.com:3128");
    expect(shownProxy("::")).toBe("(a malformed proxy URL)");
  });
});

describe("the transport shared by a process's clients", () => {
  it("gives clients of the same settings one pool, closed when the last of them lets go", async () => {
    const proxies = proxySettings({});
    const first = acquireTransport(settings, proxies);
    const second = acquireTransport(settings, proxies);
    const other = acquireTransport({ ...settings, maxConnections: 3 }, proxies);
    expect(second.api).toBe(first.api);
    expect(other.api).not.toBe(first.api);
    expect(first.other).toBe(first.api);
    await first.release();
    await first.release(); // a second release of the same client counts once
    expect(closed(first.api)).toBe(false);
    await second.release();
    expect(closed(first.api)).toBe(true);
    const third = acquireTransport(settings, proxies);
    expect(third.api).not.toBe(first.api);
    await third.release();
    await other.release();
  });

  it("routes the API through STACKWRIGHT_PROXY and every other origin through the environment's proxy", async () => {
    const transport = acquireTransport(
      settings,
      proxySettings({ HTTPS_PROXY: "http://127.0.0.1:9", STACKWRIGHT_PROXY: "http://127.0.0.1:10" }),
    );
    expect(transport.api).not.toBe(transport.other);
    await transport.release();
    expect(closed(transport.api) && closed(transport.other)).toBe(true);
  });
});

describe("TLS failures", () => {
  it("are told apart by their code, also when wrapped, each with what to change", () => {
    const untrusted = tlsProblem({ message: "x", cause: { code: "SELF_SIGNED_CERT_IN_CHAIN" } });
    expect(untrusted?.reason).toContain("NODE_EXTRA_CA_CERTS");
    expect(tlsProblem({ code: "CERT_HAS_EXPIRED" })?.reason).toContain("expired");
    expect(tlsProblem({ code: "ERR_TLS_CERT_ALTNAME_INVALID" })?.reason).toContain("host name");
    expect(tlsProblem({ code: "ECONNREFUSED" })).toBeUndefined();
    expect(tlsProblem(undefined)).toBeUndefined();
  });
});
