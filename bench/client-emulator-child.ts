/**
 * Child process of the client bench: runs the emulator in its own process so the bench process
 * measures only client-side cost. Sends `{url}` over IPC once listening; exits on disconnect.
 */
import { startEmulator, type Speed } from "../src/emulator";

async function main(): Promise<void> {
  const [seed, speed] = process.argv.slice(2);
  if (seed === undefined || speed === undefined)
    throw new Error("usage: client-emulator-child <seed> <speed>");
  const emulator = await startEmulator({ seed, speed: speed as Speed });
  process.on("disconnect", () => {
    void emulator.close().then(() => process.exit(0));
  });
  process.send?.({ url: emulator.url });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
