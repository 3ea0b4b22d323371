import { describe, expect, it } from "vitest";
import { clientDefaults, ConnectionError } from "../../../src/client";
import { describeError, exitCodeOf, UsageError } from "../../../src/cli/kit/exit-codes";
import { engineEnv, loopbackGrpcBypass } from "../../../src/cli/engine/env";
import {
  DEFAULT_API_CONCURRENCY,
  parseApiConcurrency,
  useApiConcurrency,
} from "../../../src/cli/kit/api-budget";

describe("the engine's environment behind a proxy", () => {
  it("keeps gRPC on loopback off the proxy, adding to what the caller listed", () => {
    expect(loopbackGrpcBypass({})).toBe("127.0.0.1,localhost,::1");
    expect(loopbackGrpcBypass({ NO_PROXY: ".corp.example, 127.0.0.1" })).toBe(
      ".corp.example,127.0.0.1,localhost,::1",
    );
    expect(loopbackGrpcBypass({ no_grpc_proxy: "grpc.example", no_proxy: "ignored.example" })).toBe(
      "grpc.example,127.0.0.1,localhost,::1",
    );
    const env = engineEnv({ projectDir: "/tmp/project", baseEnv: { https_proxy: "http://proxy:3128" } });
    expect(env["no_grpc_proxy"]).toBe("127.0.0.1,localhost,::1");
  });
});

describe("--api-concurrency", () => {
  it("takes a whole number from 1 to 1024, and nothing else", () => {
    expect(parseApiConcurrency(undefined)).toBeUndefined();
    expect(parseApiConcurrency("1")).toBe(1);
    expect(parseApiConcurrency("1024")).toBe(1024);
    for (const bad of ["0", "1025", "2.5", "-1", "eight", ""]) {
      expect(() => parseApiConcurrency(bad)).toThrow(UsageError);
    }
    expect(() => parseApiConcurrency("0")).toThrow(
      "--api-concurrency must be a whole number from 1 to 1024, not '0'",
    );
  });

  it("is one budget: the flag wins and reaches every client through the variable, else the variable, else one default", () => {
    const env: NodeJS.ProcessEnv = { STACKWRIGHT_API_CONCURRENCY: "3" };
    expect(useApiConcurrency(undefined, env)).toBe(3);
    expect(useApiConcurrency("2", env)).toBe(2);
    expect(env["STACKWRIGHT_API_CONCURRENCY"]).toBe("2");
    expect(useApiConcurrency(undefined, {})).toBe(DEFAULT_API_CONCURRENCY);
    expect(DEFAULT_API_CONCURRENCY).toBe(clientDefaults.maxConnections);
    expect(() => useApiConcurrency(undefined, { STACKWRIGHT_API_CONCURRENCY: "many" })).toThrow(
      "STACKWRIGHT_API_CONCURRENCY must be a whole number from 1 to 1024, not 'many'",
    );
  });
});

describe("a TLS failure anywhere in a command", () => {
  it("exits 2 with its one line, like any setting to change", () => {
    const tls = Object.assign(new Error("unable to verify the first certificate"), {
      code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    });
    const error = new ConnectionError("GET /downloads/1: TLS to files.example.com failed: …", {
      requestSent: false,
      cause: tls,
    });
    expect(exitCodeOf(error)).toBe(2);
    expect(describeError("snapshot download", error)).toBe(
      "stackwright snapshot download: GET /downloads/1: TLS to files.example.com failed: …",
    );
    const refused = new ConnectionError("GET /x: could not connect", {
      requestSent: false,
      cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
    });
    expect(exitCodeOf(refused)).toBe(1);
  });
});
