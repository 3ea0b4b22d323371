/**
 * Shared setup of the providers' end-to-end tests: a scratch project running
 * test/fixtures/providers-program against an emulator on 127.0.0.1, with the credentials in
 * stack config (the token as a secret).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import type { Answers } from "../../src/emulator";
import { startTestEmulator, TEST_USERS, type TestEmulator } from "./emulator";
import { createScratchProject, repoRoot, type ScratchProject } from "./scratch-project";

/** A scratch project, an emulator and a stack wired to each other. */
export interface ProvidersWorld {
  project: ScratchProject;
  emulator: TestEmulator;
  stack: Stack;
  stackName: string;
  /** Non-GET API requests (writes) logged by the emulator since the last clear. */
  writes(): Promise<string[]>;
  /** The stack's state file as text. */
  state(): string;
  close(): Promise<void>;
}

/** Sets `fixture:*` config values in one call each. */
export async function setFixture(stack: Stack, values: Record<string, string>): Promise<void> {
  for (const [key, value] of Object.entries(values)) await stack.setConfig(`fixture:${key}`, { value });
}

/** Starts the world; `user` picks whose credentials the stack config holds. */
export async function startProvidersWorld(
  stackName: string,
  user: { email: string; token: string } = TEST_USERS.stackManager,
  options: { answers?: Answers } = {},
): Promise<ProvidersWorld> {
  const emulator = await startTestEmulator({
    speed: "instant",
    ...(options.answers === undefined ? {} : { answers: options.answers }),
  });
  const project = createScratchProject({
    program: path.join(repoRoot, "test", "fixtures", "providers-program", "index.js"),
  });
  const stack = await project.stack(stackName);
  await stack.setConfig("stackwright:apiUrl", { value: emulator.url });
  await stack.setConfig("stackwright:email", { value: user.email });
  await stack.setConfig("stackwright:apiToken", { value: user.token, secret: true });
  return {
    project,
    emulator,
    stack,
    stackName,
    writes: async () =>
      (await emulator.hooks.requests())
        .filter((r) => r.method !== "GET" && !r.path.startsWith("/_emulator"))
        .map((r) => `${r.method} ${r.path}`),
    state: () => fs.readFileSync(project.stateFile(stackName), "utf8"),
    close: async () => {
      await emulator.close();
      project.remove();
    },
  };
}

/** Resources of a given `stackwright:<Type>` in the state text. */
export function stateResources(
  state: string,
  type: string,
): { inputs: Record<string, unknown>; outputs: Record<string, unknown>; id: string }[] {
  const doc = JSON.parse(state) as {
    checkpoint: {
      latest?: {
        resources?: {
          type: string;
          id: string;
          inputs: Record<string, unknown>;
          outputs: Record<string, unknown>;
        }[];
      };
    };
  };
  return (doc.checkpoint.latest?.resources ?? []).filter(
    (r) => r.type === `pulumi-nodejs:dynamic/stackwright:${type}`,
  );
}
