/**
 * The API reads of one observation: at most `concurrency` requests in flight for the whole run
 * (one budget, a single number that the `--api-concurrency` flag can set), and one request per
 * distinct read (the same key answers from the first request, in flight or done).
 */

/** Runs tasks with at most `concurrency` at once, in the order they were asked. */
export class Budget {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`the API concurrency must be a whole number of at least 1, not ${concurrency}`);
    }
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.concurrency) await new Promise<void>((go) => this.#waiting.push(go));
    this.#active += 1;
    try {
      return await task();
    } finally {
      this.#active -= 1;
      this.#waiting.shift()?.();
    }
  }
}

/** One answer per key, each read under the budget. */
export class Reads {
  readonly #answers = new Map<string, Promise<unknown>>();

  constructor(readonly budget: Budget) {}

  /** The answer of `read` for `key`, read once. The caller keeps key and type together. */
  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.#answers.get(key) as Promise<T> | undefined;
    if (known !== undefined) return known;
    const answer = this.budget.run(read);
    this.#answers.set(key, answer);
    return answer;
  }

  /** How many distinct reads were made. */
  get count(): number {
    return this.#answers.size;
  }
}

/** Maps `items` with `map`, all started at once (the budget bounds the requests, not this). */
export function mapAll<T, U>(items: readonly T[], map: (item: T) => Promise<U>): Promise<U[]> {
  return Promise.all(items.map(map));
}
