/**
 * Child process of the emulator and client benches (started by server-process.ts): serves either
 * the emulator (demo seed, at the given speed) or a bare Fastify route pair on 127.0.0.1, so the
 * bench process only generates load. Sends `{url}` over IPC once listening; exits on disconnect.
 */
import "../src/sqlite-warning";
import Fastify from "fastify";
import { DEFAULT_SEED_PATH, SPEEDS, type Speed, startEmulator } from "../src/emulator";

async function serve(
  kind: "emulator" | "bare",
  speed: Speed,
  stateFile: string | undefined,
): Promise<{ url: string; close(): Promise<void> }> {
  if (kind === "emulator") {
    return startEmulator({
      seed: DEFAULT_SEED_PATH,
      speed,
      ...(stateFile === undefined ? {} : { stateFile }),
    });
  }
  // The baseline: the least a Fastify server does for a JSON GET and a JSON POST.
  const app = Fastify({ logger: false });
  app.addContentTypeParser(
    "application/vnd.api+json",
    { parseAs: "string" },
    app.getDefaultJsonParser("ignore", "ignore"),
  );
  app.get("/bare", (_request, reply) => {
    reply.header("content-type", "application/vnd.api+json");
    return reply.send(
      Buffer.from(JSON.stringify({ data: { type: "bare", id: "1", attributes: { ok: true } } })),
    );
  });
  app.post("/bare", (request, reply) => {
    reply.code(201).header("content-type", "application/vnd.api+json");
    return reply.send(
      Buffer.from(JSON.stringify({ data: { type: "bare", id: "1", attributes: request.body } })),
    );
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

function isSpeed(value: string | undefined): value is Speed {
  return SPEEDS.some((s) => s === value);
}

async function main(): Promise<void> {
  const [kind, speed, stateFile] = process.argv.slice(2);
  if ((kind !== "emulator" && kind !== "bare") || !isSpeed(speed)) {
    throw new Error(`usage: emulator-server-child emulator|bare ${SPEEDS.join("|")} [STATE_FILE]`);
  }
  const server = await serve(kind, speed, stateFile);
  process.on("disconnect", () => {
    void server.close().then(() => process.exit(0));
  });
  process.send?.({ url: server.url });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
