import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotifyEvent } from "../../../src/api";
import { notifyDrift, prepareNotify } from "../../../src/project/notify-sinks";
import { startReceiver, type Receiver } from "../../helpers/receivers";

// What `stackwright drift` calls: the target's and the files' sinks, checked first, then the
// drift's new and resolved entries sent to the sinks of their stacks.
describe("drift notifications through the CLI's notify glue", () => {
  let dir: string;
  let hook: Receiver;

  beforeAll(async () => {
    hook = await startReceiver();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "stackwright-notify-"));
    fs.mkdirSync(path.join(dir, "stacks-config"));
    fs.writeFileSync(
      path.join(dir, "Pulumi.production.yaml"),
      "config:\n  stackwright:notify:\n    - { name: audit, kind: webhook, url_env: AUDIT_URL, secret_env: AUDIT_SECRET, events: [drift.detected, drift.resolved] }\n",
    );
    fs.writeFileSync(path.join(dir, "stacks-config", "acme-web.yaml"), "stack: acme-web\n");
    fs.writeFileSync(
      path.join(dir, "stacks-config", "acme-intranet.yaml"),
      "stack: acme-intranet\nnotify:\n  - { name: audit, kind: webhook, url_env: AUDIT_URL, secret_env: AUDIT_SECRET, events: [drift.resolved] }\n",
    );
  });

  afterAll(async () => {
    await hook.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to start when a sink's variable is unset, naming its line", async () => {
    await expect(prepareNotify(dir, "production", ["acme-web"], { AUDIT_URL: hook.url })).rejects.toThrow(
      /Pulumi\.production\.yaml:3:69: notify sink 'audit': secret_env: the variable AUDIT_SECRET is not set/,
    );
  });

  it("sends new drift as detected and resolved drift as resolved, each to its stack's sinks", async () => {
    const env = { AUDIT_URL: hook.url, AUDIT_SECRET: "s" };
    const prepared = await prepareNotify(dir, "production", ["acme-web", "acme-intranet"], env);
    const lines: string[] = [];
    const entry = (apiStack: string) => ({
      apiStack,
      environment: "prod",
      kind: "deployment",
      message: "by hand",
    });
    const { markdown } = await notifyDrift(
      prepared,
      { new: [entry("acme-web"), entry("acme-intranet")], resolved: [entry("acme-intranet")] },
      env,
      (line) => lines.push(line),
    );
    const got = hook.received.map((r) => NotifyEvent.parse(JSON.parse(r.body)));
    // acme-intranet's own `audit` replaces the target's and takes resolved drift only.
    expect(got.map((e) => `${e.event} ${e.stack}`)).toEqual([
      "drift.detected acme-web",
      "drift.resolved acme-intranet",
    ]);
    expect(lines[0]).toBe("notifications: 2 delivered, 0 failed (the exit code does not depend on them)");
    expect(markdown).toContain("| audit (webhook) | drift.detected | delivered | HTTP 200 |");
  });
});
