/**
 * The emulator's hooks (`/_emulator/…`) against a web page the tester has open: the browser can
 * reach 127.0.0.1, but its requests carry the page's `Origin`, or a name of the attacker's in
 * `Host` (DNS rebinding). Such requests are refused; a test's or script's request (loopback
 * `Host`, no `Origin`) is served.
 */
import * as http from "node:http";
import { describe, expect, it } from "vitest";
import { useTestEmulator } from "../../helpers/emulator-http";

const emu = useTestEmulator();

/** POST /_emulator/reset with exactly these headers (node:http, which sends `Host` as given). */
function reset(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(`${emu.url}/_emulator/reset`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the emulator's hooks", () => {
  it("refuse a cross-origin request, as a web page's form post would send it", async () => {
    const host = new URL(emu.url).host;
    const { status, body } = await reset({ host, origin: "https://evil.example", "content-length": "0" });
    expect(status).toBe(403);
    expect(body).toContain("The emulator's hooks refuse cross-origin requests");
  });

  it("refuse a request addressed to a name that is not loopback (DNS rebinding)", async () => {
    const { status, body } = await reset({ host: "rebind.evil.example", "content-length": "0" });
    expect(status).toBe(403);
    expect(body).toContain("answer only requests addressed to a loopback host");
  });

  it("serve a request addressed to loopback, without an Origin or from the emulator's own", async () => {
    const host = new URL(emu.url).host;
    expect((await reset({ host, "content-length": "0" })).status).toBeLessThan(300);
    expect(
      (await reset({ host: `localhost:${new URL(emu.url).port}`, "content-length": "0" })).status,
    ).toBeLessThan(300);
    expect((await reset({ host, origin: `http://${host}`, "content-length": "0" })).status).toBeLessThan(300);
  });
});
