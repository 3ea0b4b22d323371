import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CommandError } from "@pulumi/pulumi/automation";
import { afterEach, describe, expect, it } from "vitest";
import {
  runEngineProcess,
  runningEngines,
  whatItWaitsFor,
  withoutOutputsAfterStop,
} from "../../../../src/cli/engine/engine-process";
import { handleInterrupts, InterruptedError, SAME_KEYPRESS_MS } from "../../../../src/cli/engine/interrupt";
import { waitFor } from "../../../helpers/stackwright-process";

const dirs: string[] = [];
const scratch = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-process-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for `pulumi`: records each SIGINT it gets and its process group, ends at the second. */
function fakeEngine(dir: string): string {
  const file = path.join(dir, "pulumi");
  fs.writeFileSync(
    file,
    [
      "#!/bin/bash",
      `log=${JSON.stringify(path.join(dir, "log"))}`,
      'echo "pgid $(ps -o pgid= -p $$ | tr -d " ") pid $$" >> "$log"',
      "n=0; trap 'n=$((n+1)); echo int >> \"$log\"; if [ $n -ge 2 ]; then exit 255; fi' INT",
      'echo "Outputs:"; echo "  - facts: {}"; echo; echo "args $*"',
      "while :; do sleep 0.05; done",
    ].join("\n"),
    { mode: 0o755 },
  );
  return file;
}

describe("an engine process", () => {
  it("runs in a process group of its own and gets exactly one SIGINT per stop", async () => {
    const dir = scratch();
    const controller = new AbortController();
    let out = "";
    const run = runEngineProcess(
      { command: fakeEngine(dir) },
      ["up"],
      dir,
      {},
      {
        stack: "dev.acme-web",
        eventLog: path.join(dir, "events.jsonl"),
        signal: controller.signal,
        baseEnv: process.env,
        onOutput: (text) => (out += text),
      },
    );
    const log = () =>
      fs.existsSync(path.join(dir, "log")) ? fs.readFileSync(path.join(dir, "log"), "utf8") : "";
    await waitFor(() => out.includes("args up --non-interactive"), "the engine running");
    const [, pgid, pid] = /pgid (\d+) pid (\d+)/.exec(log()) ?? [];
    expect(pgid).toBe(pid);
    expect(runningEngines().map((e) => e.stack)).toEqual(["dev.acme-web"]);

    controller.abort(new InterruptedError("SIGINT"));
    controller.abort(new InterruptedError("SIGINT"));
    await waitFor(() => log().includes("int"), "the first SIGINT");
    expect(log().match(/int/g)).toHaveLength(1);
    for (const engine of runningEngines()) engine.signal("SIGINT");
    const failure: unknown = await run.catch((err: unknown) => err);
    expect(log().match(/int/g)).toHaveLength(2);
    // The same error as the SDK's command runner makes.
    expect(failure).toBeInstanceOf(CommandError);
    expect(runningEngines()).toEqual([]);
  });

  it("never starts once the run is stopped", async () => {
    const dir = scratch();
    const controller = new AbortController();
    controller.abort(new InterruptedError("SIGTERM"));
    await expect(
      runEngineProcess(
        { command: fakeEngine(dir) },
        ["up"],
        dir,
        {},
        {
          stack: "s",
          eventLog: path.join(dir, "events.jsonl"),
          signal: controller.signal,
          baseEnv: process.env,
        },
      ),
    ).rejects.toThrow("stopped by SIGTERM");
    expect(fs.existsSync(path.join(dir, "log"))).toBe(false);
  });

  it("leaves out the list of outputs the engine prints after a stop, and nothing before it", () => {
    let stopped = false;
    let out = "";
    const display = withoutOutputsAfterStop(
      (t) => (out += t),
      () => stopped,
    );
    display.write("Outputs:\n    facts: {}\n\nResources:\n");
    stopped = true;
    display.write("Outputs:\n  - facts: {}\n  - sta");
    display.write("cks: {}\n\nResources:\n    + 5 created\nDuration: 4s");
    display.flush();
    expect(out).toBe("Outputs:\n    facts: {}\n\nResources:\nResources:\n    + 5 created\nDuration: 4s");
  });
});

describe("what a stop waits for", () => {
  const event = (sequence: number, body: object) =>
    JSON.stringify({ sequence, timestamp: sequence, ...body });
  const urn = (type: string, name: string) =>
    `urn:pulumi:dev.acme-web::stackwright::stackwright:index:Stack$pulumi-nodejs:dynamic/stackwright:${type}::${name}`;
  const pre = (type: string, name: string, inputs: object) => ({
    resourcePreEvent: {
      metadata: {
        urn: urn(type, name),
        type: `pulumi-nodejs:dynamic/stackwright:${type}`,
        op: "create",
        new: { inputs },
      },
    },
  });

  it("names each deployment in flight with its id and bound, and not those that ended", () => {
    const dir = scratch();
    const log = path.join(dir, "events.jsonl");
    fs.writeFileSync(
      log,
      [
        event(1, pre("Deployment", "acme-web/uat", { stack: "acme-web", environment: "uat" })),
        event(
          2,
          pre("Deployment", "acme-web/prod", {
            stack: "acme-web",
            environment: "prod",
            timeout_seconds: 5400,
          }),
        ),
        event(3, pre("Deployment", "acme-web/test", { stack: "acme-web", environment: "test" })),
        event(4, {
          diagnosticEvent: {
            message: "[stackwright] deployment 103 on acme-web/uat created (Queued): http://x\n",
          },
        }),
        event(5, {
          diagnosticEvent: { message: "[stackwright] deployment 7 on acme-web/test: Deploying (1s)\n" },
        }),
        event(6, { resOutputsEvent: { metadata: { urn: urn("Deployment", "acme-web/test") } } }),
        event(7, pre("EnvironmentLock", "acme-web/uat", { stack: "acme-web", environment: "uat" })),
        '{"sequence": 8, "timest',
      ].join("\n"),
    );
    expect(whatItWaitsFor({ stack: "dev.acme-web", eventLog: log })).toEqual([
      "waiting for deployment 103 on acme-web/uat to finish (its bound: 30m)",
      "waiting for the deployment on acme-web/prod to finish (its bound: 1h30m)",
    ]);
    // Named by the engine's display before its event log has the line.
    expect(
      whatItWaitsFor({ stack: "dev.acme-web", eventLog: log, named: new Map([["acme-web/prod", "104"]]) }),
    ).toContain("waiting for deployment 104 on acme-web/prod to finish (its bound: 1h30m)");
  });

  it("names the engine saving its state when nothing waits on the platform, or no log yet", () => {
    const dir = scratch();
    expect(whatItWaitsFor({ stack: "dev.acme-web", eventLog: path.join(dir, "none.jsonl") })).toEqual([
      "waiting for the engine of dev.acme-web to save its state",
    ]);
  });
});

describe("the signal handlers", () => {
  it("stop gracefully at the first signal, count one key press delivered twice once, and stop at once at the second", () => {
    const lines: string[] = [];
    let now = 1_000;
    const interrupts = handleInterrupts({ log: (l) => lines.push(l.trim()), now: () => now });
    try {
      process.emit("SIGINT", "SIGINT");
      now += SAME_KEYPRESS_MS / 3;
      process.emit("SIGINT", "SIGINT");
      expect(interrupts.signal.aborted).toBe(true);
      expect(interrupts.received()).toBe("SIGINT");
      expect(lines).toEqual([
        "stackwright: SIGINT received: stopping gracefully; no engine is running and none will start; Ctrl-C again to stop at once",
      ]);
      now += SAME_KEYPRESS_MS;
      process.emit("SIGINT", "SIGINT");
      process.emit("SIGTERM", "SIGTERM");
      expect(lines).toEqual([
        "stackwright: SIGINT received: stopping gracefully; no engine is running and none will start; Ctrl-C again to stop at once",
        "stackwright: SIGINT received again: stopping at once. The next run recovers the lock.",
      ]);
    } finally {
      interrupts.dispose();
    }
    expect(process.listenerCount("SIGINT")).toBe(0);
  });

  it("say SIGTERM's own way to stop at once", () => {
    const lines: string[] = [];
    const interrupts = handleInterrupts({ log: (l) => lines.push(l.trim()) });
    try {
      process.emit("SIGTERM", "SIGTERM");
    } finally {
      interrupts.dispose();
    }
    expect(lines[0]).toMatch(/; SIGTERM again to stop at once$/);
  });
});
