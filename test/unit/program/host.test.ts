import * as pulumi from "@pulumi/pulumi";
import { withLocalStorage } from "@pulumi/pulumi/runtime/state";
import { describe, expect, it } from "vitest";
import { programEnv, programWorkDir, withProgramRun } from "../../../providers";
// The declaration of the SDK's internal `withLocalStorage` lives in the host.
import "../../../src/program/host";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("the program hosted in the stackwright process", () => {
  it("relies on the SDK's per-run store, which the pinned SDK still has", () => {
    // Its typings leave it out (internal); src/program/host.ts declares it. An SDK that drops it
    // must fail here, not at a user's first run.
    expect(typeof withLocalStorage).toBe("function");
  });

  it("gives runs at once each their own stack and config in the SDK, and their own environment in ours", async () => {
    const run = (stack: string) =>
      withLocalStorage(async () => {
        pulumi.runtime.resetOptions("stackwright", stack, 1, "", "", true, "");
        pulumi.runtime.setAllConfig({ "stackwright:configDir": `config-of-${stack}` }, []);
        return withProgramRun(
          { env: { STACKWRIGHT_API_URL: `https://${stack}.example.com` }, workDir: `/p/${stack}` },
          async () => {
            await tick();
            const seen = {
              stack: pulumi.getStack(),
              configDir: new pulumi.Config("stackwright").get("configDir"),
              apiUrl: programEnv()["STACKWRIGHT_API_URL"],
              workDir: programWorkDir(),
            };
            await tick();
            return seen;
          },
        );
      });
    const seen = await Promise.all(["dev.a", "dev.b", "dev.c"].map(run));
    expect(seen).toEqual(
      ["dev.a", "dev.b", "dev.c"].map((stack) => ({
        stack,
        configDir: `config-of-${stack}`,
        apiUrl: `https://${stack}.example.com`,
        workDir: `/p/${stack}`,
      })),
    );
  });

  it("reads the process's environment when no host gave the run one (the program as a file)", () => {
    expect(programEnv()).toBe(process.env);
    expect(programWorkDir()).toBe(process.cwd());
  });
});
