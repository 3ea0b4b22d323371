import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOptions, notifyDrift, prepareNotify } from "../../../src/project/notify-sinks";
import { CliError, UsageError } from "../../../src/cli/kit/exit-codes";
import { startForwardProxy, type ForwardProxy } from "../../helpers/forward-proxy";
import { startReceiver, type Receiver } from "../../helpers/receivers";

// A runner that reaches the outside only through a forward proxy: notifications go through it as
// the API client's requests do, and a host NO_PROXY names is reached directly.
describe("notification delivery behind a forward proxy", () => {
  let dir: string;
  let hook: Receiver;
  let proxy: ForwardProxy;
  let hookPort = "";

  const deliver = async (env: Record<string, string>) => {
    const prepared = await prepareNotify(dir, "production", ["acme-web"], env);
    const lines: string[] = [];
    const change = { apiStack: "acme-web", environment: "prod", kind: "hand deployment", message: "by hand" };
    await notifyDrift(prepared, { new: [change], resolved: [] }, env, (line) => lines.push(line));
    return lines;
  };

  beforeAll(async () => {
    hook = await startReceiver();
    hookPort = new URL(hook.url).port;
    // The sink's host name resolves only through the proxy: a request that bypassed it would fail.
    proxy = await startForwardProxy({ hosts: { "hooks.stackwright.test": "127.0.0.1" } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-notify-proxy-"));
    fs.mkdirSync(path.join(dir, "stacks-config"));
    fs.writeFileSync(
      path.join(dir, "Pulumi.production.yaml"),
      "config:\n  stackwright:notify:\n    - { name: audit, kind: webhook, url_env: AUDIT_URL, secret_env: AUDIT_SECRET, events: [drift.detected] }\n",
    );
    fs.writeFileSync(path.join(dir, "stacks-config", "acme-web.yaml"), "stack: acme-web\n");
  });

  afterAll(async () => {
    await hook.close();
    await proxy.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sends nothing over http to a host that is not loopback, even through the proxy, naming the variable and not the URL", async () => {
    const before = hook.received.length;
    const lines = await deliver({
      AUDIT_URL: `http://hooks.stackwright.test:${hookPort}/hook`,
      AUDIT_SECRET: "s",
      HTTP_PROXY: proxy.url,
    });
    expect(lines).toEqual([
      "notifications: 0 delivered, 1 failed (the exit code does not depend on them)",
      "  audit (webhook) drift.detected: not sent: the URL in AUDIT_URL uses http to a host that is not loopback, which would send the notification in clear text; use https",
    ]);
    expect(hook.received.length).toBe(before);
    expect(proxy.connections(`hooks.stackwright.test:${hookPort}`)).toBe(0);
  });

  it("sends nothing to a URL of another scheme", async () => {
    const lines = await deliver({ AUDIT_URL: "file:///etc/passwd", AUDIT_SECRET: "s" });
    expect(lines[1]).toBe(
      "  audit (webhook) drift.detected: not sent: the URL in AUDIT_URL must be https (or http on loopback), not file:",
    );
  });

  it("goes through the proxy to 127.0.0.1 too, unless NO_PROXY names it", async () => {
    const via = proxy.connections();
    await deliver({ AUDIT_URL: hook.url, AUDIT_SECRET: "s", http_proxy: proxy.url });
    expect(proxy.connections(`127.0.0.1:${hookPort}`)).toBe(1);

    const direct = proxy.connections();
    expect(direct).toBe(via + 1);
    const lines = await deliver({
      AUDIT_URL: hook.url,
      AUDIT_SECRET: "s",
      HTTP_PROXY: proxy.url,
      NO_PROXY: "localhost,127.0.0.1",
    });
    expect(lines[0]).toBe("notifications: 1 delivered, 0 failed (the exit code does not depend on them)");
    expect(proxy.connections()).toBe(direct);
  });

  it("refuses a malformed proxy URL before the run, naming the variable and not the URL", () => {
    // A variable to change, not a flag: exit 2 without the pointer to --help.
    expect(() => deliveryOptions({ HTTPS_PROXY: "proxy.corp:3128" })).toThrow(CliError);
    expect(() => deliveryOptions({ HTTPS_PROXY: "proxy.corp:3128" })).not.toThrow(UsageError);
    expect(() => deliveryOptions({ HTTPS_PROXY: "ftp://user:pw@proxy.corp" })).toThrow(
      "HTTPS_PROXY must be an http:// or https:// proxy, not ftp:",
    );
  });
});
