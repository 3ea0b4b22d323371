/**
 * The floor of the observe bench, as its own process (the emulator runs in the bench's, as it does
 * for the measured `stackwright` runs): the reads an observation of the fleet makes, as bare GETs
 * through our client at the same concurrency, and nothing else. `GET /svc/meta` and the stack
 * list (one after the other, as the preflight and the observation make them), then per stack the
 * list names and per environment given its document and its deployments, `CONCURRENCY` at once.
 *
 * Run by bench/observe.ts: `node dist/bench/observe-floor.js CONCURRENCY dev,uat,prod` with
 * STACKWRIGHT_API_URL, STACKWRIGHT_EMAIL and STACKWRIGHT_API_TOKEN set. Prints one line of JSON:
 * `{"ms": ..., "requests": ...}`, the time of the GETs alone (the process's start is the bench's
 * to measure).
 */
import { createClient } from "../src/client";

async function main(argv: readonly string[]): Promise<void> {
  const concurrency = Number(argv[0]);
  const environments = (argv[1] ?? "").split(",").filter((e) => e !== "");
  const url = process.env["STACKWRIGHT_API_URL"];
  const email = process.env["STACKWRIGHT_EMAIL"];
  const token = process.env["STACKWRIGHT_API_TOKEN"];
  if (!Number.isInteger(concurrency) || concurrency < 1 || environments.length === 0) {
    throw new Error("usage: observe-floor CONCURRENCY ENV,ENV,... (the API settings in the environment)");
  }
  if (url === undefined || email === undefined || token === undefined) {
    throw new Error("observe-floor: set STACKWRIGHT_API_URL, STACKWRIGHT_EMAIL and STACKWRIGHT_API_TOKEN");
  }
  const client = createClient({ baseUrl: url, email, token, maxConnections: concurrency });
  try {
    const started = performance.now();
    await client.info.whoami();
    const stacks = await client.stacks.list();
    const calls = stacks.flatMap((s) =>
      environments.flatMap((e) => [
        () => client.environments.get(s.id, e),
        () => client.deployments.list(s.id, e),
      ]),
    );
    let next = 0;
    const worker = async () => {
      while (next < calls.length) {
        const call = calls[next++];
        if (call !== undefined) await call();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify({ ms, requests: calls.length + 2 })}\n`);
  } finally {
    await client.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
