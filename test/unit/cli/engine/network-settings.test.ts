import { describe, expect, it } from "vitest";
import { clientDefaults, ConnectionError } from "../../../../src/client";
import { describeError, exitCodeOf, UsageError } from "../../../../src/cli/kit/exit-codes";
import { engineEnv, loopbackGrpcBypass } from "../../../../src/project/engine-env";
import {
  apiBudget,
  apiBudgetEnv,
  apiConcurrencyFlag,
  DEFAULT_API_CONCURRENCY,
} from "../../../../src/cli/kit/api-budget";
import { parseFlags } from "../../../../src/cli/kit/args";

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
  const parse = (argv: string[]) => parseFlags("status", argv, apiConcurrencyFlag).flags["api-concurrency"];

  it("takes a whole number from 1 to 1024, and nothing else", () => {
    expect(parse([])).toBeUndefined();
    expect(parse(["--api-concurrency", "1"])).toBe(1);
    expect(parse(["--api-concurrency=1024"])).toBe(1024);
    for (const bad of ["0", "1025", "2.5", "-1", "eight"]) {
      expect(() => parse([`--api-concurrency=${bad}`])).toThrow(UsageError);
    }
    expect(() => parse(["--api-concurrency", "0"])).toThrow(
      "stackwright status: --api-concurrency must be a whole number from 1 to 1024, not '0'",
    );
  });

  it("is one budget: the flag wins, else the variable, else one default; the environment is never written", () => {
    const env = { STACKWRIGHT_API_CONCURRENCY: "3" };
    expect(apiBudget(undefined, env)).toBe(3);
    expect(apiBudget(2, env)).toBe(2);
    expect(env).toEqual({ STACKWRIGHT_API_CONCURRENCY: "3" });
    expect(apiBudgetEnv(2)).toEqual({ STACKWRIGHT_API_CONCURRENCY: "2" });
    expect(apiBudget(undefined, {})).toBe(DEFAULT_API_CONCURRENCY);
    expect(DEFAULT_API_CONCURRENCY).toBe(clientDefaults.maxConnections);
    expect(() => apiBudget(undefined, { STACKWRIGHT_API_CONCURRENCY: "many" })).toThrow(
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
