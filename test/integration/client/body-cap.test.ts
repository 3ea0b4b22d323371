import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseTooLargeError } from "../../../src/client";
import { failure, testClient } from "../../helpers/client";

// A server that answers /svc/meta without a Content-Length (chunked), so the client can only
// bound the body by counting bytes as they arrive.
let server: http.Server;
let url: string;
let chunksSent = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/vnd.api+json" });
    const chunk = "x".repeat(1_024);
    let sent = 0;
    const push = () => {
      // Bounded: at most 64 KiB, ended early when the client hangs up.
      while (sent < 64 && !res.destroyed) {
        sent++;
        chunksSent++;
        if (!res.write(chunk)) return void res.once("drain", push);
      }
      res.end();
    };
    push();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("a response body without a declared length", () => {
  it("is cut off once it passes maxResponseBytes instead of being buffered whole", async () => {
    const client = testClient({
      baseUrl: url,
      email: "ops@example.com",
      token: "cap-token",
      maxResponseBytes: 4_096,
    });
    const error = await failure(client.info.whoami());
    expect(ResponseTooLargeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("exceeds 4096 bytes");
    await client.close();
  });

  it("is read whole when it stays within the cap", async () => {
    const client = testClient({
      baseUrl: url,
      email: "ops@example.com",
      token: "cap-token",
      maxResponseBytes: 1_000_000,
    });
    // 64 KiB of "x" is within the cap but not JSON: the error is about the shape, not the size.
    const error = await failure(client.info.whoami());
    expect(ResponseTooLargeError.isInstance(error)).toBe(false);
    expect(chunksSent).toBeGreaterThan(0);
    await client.close();
  });
});
