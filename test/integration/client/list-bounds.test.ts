/**
 * The client's bounds on what a list and a body may cost, against the emulator behind a proxy
 * that swells its lists (test/helpers/swelling-proxy.ts): a list stops at its byte budget, the
 * lists of one process share a budget, and a body that trickles is cut at its overall deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReadBudget, ResponseTooLargeError, TimeoutError } from "../../../src/client";
import { failure, testClient } from "../../helpers/client";
import { TEST_USERS, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { startSwellingProxy, type SwellingProxy } from "../../helpers/swelling-proxy";

const PAGE_BYTES = 100_000;
let emulator: TestEmulator;
let proxy: SwellingProxy;

beforeAll(async () => {
  emulator = await startTestEmulator();
  proxy = await startSwellingProxy(emulator.url, {
    pageBytes: PAGE_BYTES,
    pages: 50,
    trickle: ["/svc/meta"],
    trickleEveryMs: 50,
  });
});
afterAll(async () => {
  await proxy.close();
  await emulator.close();
});

function client(options: { maxListBytes?: number; readBudget?: ReadBudget; bodyDeadlineMs?: number } = {}) {
  return testClient({
    baseUrl: proxy.url,
    ...TEST_USERS.stackManager,
    retry: { baseDelayMs: 1 },
    ...options,
  });
}

describe("a list that grows past its byte budget", () => {
  it("stops once its pages pass maxListBytes, naming the endpoint, the pages read and what to do", async () => {
    const c = client({ maxListBytes: 1_050_000 });
    const error = await failure(c.stacks.list());
    await c.close();
    expect(ResponseTooLargeError.isInstance(error)).toBe(true);
    const tooLarge = error as ResponseTooLargeError;
    // 100 kB and the emulator's answer a page: the eleventh passes the budget, no twelfth is asked for.
    expect(tooLarge.pages).toBe(11);
    expect(proxy.pagesServed("/svc/projects")).toBeLessThanOrEqual(11);
    expect(tooLarge.message).toMatch(
      /^GET \/svc\/projects: stopped after 11 pages and 1\.\d MiB, over the 1\.0 MiB one list may read \(maxListBytes\); narrow the query/,
    );
    expect(tooLarge.message).not.toContain("\n");
  });

  it("is read whole while it stays within the budget", async () => {
    const c = client({ maxListBytes: 50 * (PAGE_BYTES + 50_000) });
    const stacks = await c.stacks.list();
    await c.close();
    expect(stacks.length).toBeGreaterThan(0);
  });
});

describe("the lists of one process", () => {
  it("share one budget: a list that alone fits stops when the process's total passes it", async () => {
    const budget = new ReadBudget(1_500_000);
    const [first, second] = [client({ readBudget: budget }), client({ readBudget: budget })];
    const outcomes = await Promise.allSettled([first.stacks.list(), second.stacks.list()]);
    await Promise.all([first.close(), second.close()]);
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(ResponseTooLargeError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^GET \/svc\/projects: stopped after \d+ pages?: this process has read 1\.\d MiB of list pages, over its budget of 1\.4 MiB/,
      );
    }
    // The budget stops both lists before either reads its fifty pages.
    expect(budget.usedBytes).toBeLessThan(1_500_000 + 2 * (PAGE_BYTES + 50_000));
  });
});

describe("a response body that trickles", () => {
  it("is cut at bodyDeadlineMs although bytes keep arriving within the idle bound, and is not repeated", async () => {
    const before = proxy.trickles();
    const c = client({ bodyDeadlineMs: 600 });
    const error = await failure(c.info.whoami());
    await c.close();
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(600);
    expect((error as Error).message).toBe(
      "GET /svc/meta: the response body took longer than 600 ms in all (bodyDeadlineMs); not repeated",
    );
    expect(proxy.trickles() - before).toBe(1);
  });
});
