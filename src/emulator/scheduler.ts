/** How fast background work moves: instant (tests), fast (demos in a hurry), realistic. */
export const SPEEDS = ["instant", "fast", "realistic"] as const;
export type Speed = (typeof SPEEDS)[number];

/** Delay of one background step, in ms; varies by `seq` deterministically within the speed's range. */
export function stepDelay(speed: Speed, seq: number): number {
  switch (speed) {
    case "instant":
      return 1 + (seq % 4);
    case "fast":
      return 50 + ((seq * 37) % 101);
    case "realistic":
      return 1000 + ((seq * 397) % 2001);
  }
}

/** Owns every timer of the emulator so `close()` can stop them all. */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private seq = 0;

  constructor(readonly speed: Speed) {}

  /** Runs `fn` after one step delay of the current speed. */
  step(fn: () => void): void {
    this.after(stepDelay(this.speed, this.seq++), fn);
  }

  after(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      try {
        fn();
      } catch (err) {
        // A background step must never take the server down; the error is visible on stderr.
        console.error(`emulator: background step failed: ${err instanceof Error ? err.stack : String(err)}`);
      }
    }, ms);
    this.timers.add(timer);
  }

  /** Resolves after `ms` (resolves at once when closed, so no request waits forever). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  get pending(): number {
    return this.timers.size;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
