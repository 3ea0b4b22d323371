import type { EngineEvent } from "@pulumi/pulumi/automation";
import { CommandError } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { engineDiagnostic } from "../../../../src/cli/kit/engine-diagnostic";
import { describeError, exitCodeOf } from "../../../../src/cli/kit/exit-codes";

const diag = (message: string, severity: string, urn?: string): EngineEvent =>
  ({
    sequence: 0,
    timestamp: 0,
    diagnosticEvent: { message, severity, color: "never", ...(urn === undefined ? {} : { urn }) },
  }) as EngineEvent;

const URN =
  "urn:pulumi:dev.acme-web::stackwright::pulumi-nodejs:dynamic/stackwright:Deployment::acme-web/prod";

describe("the line that names why an engine run failed", () => {
  it("is the resource's own error, in one line, before the engine's generic summary", () => {
    const events = [
      diag("preview failed", "error"),
      diag('acme-web/prod is locked ("Change freeze")\n  and stays locked in this change\n', "error", URN),
    ];
    expect(engineDiagnostic(events)).toBe(
      'acme-web/prod is locked ("Change freeze") and stays locked in this change',
    );
  });

  it("reads a resource's error through the engine's '1 error occurred' wrapper", () => {
    const events = [
      diag(
        '1 error occurred:\n\t* Deployment 104 "" on acme-web/prod ended Failed: L. The state records it.\n',
        "error",
        URN,
      ),
      diag("update failed", "error"),
    ];
    expect(engineDiagnostic(events)).toBe(
      'Deployment 104 "" on acme-web/prod ended Failed: L. The state records it.',
    );
  });

  it("falls back to the first error line of the engine's error stream when there are no events", () => {
    const stderr = "\u001b[31merror: \u001b[0mcould not load plugin pulumi-nodejs\nerror: update failed\n";
    expect(engineDiagnostic([], stderr)).toBe("could not load plugin pulumi-nodejs");
  });

  it("reads the first error line of a failed engine command's text, where it follows 'stderr: '", () => {
    const text =
      "code: 255\n stdout: \n stderr: error: getting stack configuration: could not open the state\n";
    expect(engineDiagnostic([], text)).toBe("getting stack configuration: could not open the state");
  });

  it("calls a passphrase that cannot open the target's secrets a setting to change (exit 2), in one line", () => {
    const err = Object.assign(Object.create(CommandError.prototype) as CommandError, {
      message:
        "code: 255\n stdout: \n stderr: error: getting stack configuration: get stack secrets manager: incorrect passphrase\n",
    });
    expect(exitCodeOf(err)).toBe(2);
    expect(describeError("up", err)).toBe(
      "stackwright up: the engine cannot open the target's secrets: incorrect passphrase; check PULUMI_CONFIG_PASSPHRASE (or the secrets provider the file names)",
    );
  });

  it("keeps a failure whose log merely mentions an incorrect passphrase a failure (exit 1)", () => {
    const err = Object.assign(Object.create(CommandError.prototype) as CommandError, {
      message:
        "code: 255\n stdout: \n stderr: error: acme-web/uat: deploy failed: mysql: incorrect passphrase for user app\n",
    });
    expect(exitCodeOf(err)).toBe(1);
  });

  it("ends the command's failure line instead of pointing above", () => {
    const err = Object.create(CommandError.prototype) as CommandError;
    const line = describeError("preview", err, [diag("check failed: acme-web: no build", "error", URN)]);
    expect(line).toBe("stackwright preview failed: check failed: acme-web: no build");
    expect(line).not.toContain("above");
  });
});
