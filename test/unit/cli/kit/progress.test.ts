import { describe, expect, it } from "vitest";
import { linePrinter } from "../../../../src/cli/commands/logs";
import { bytes, progressBar, progressReporter } from "../../../../src/cli/kit/progress";

const at = (receivedBytes: number, totalBytes = 1000, resumedFromBytes = 0) => ({
  receivedBytes,
  totalBytes,
  resumedFromBytes,
});

describe("download progress", () => {
  it("draws a bar that fills with the bytes received and fits the terminal", () => {
    const empty = progressBar(at(0), 40);
    const half = progressBar(at(500), 40);
    const full = progressBar(at(1000), 40);
    expect(empty).toMatch(/^\[-+\] {3}0% {2}0 B of 1000 B$/);
    expect(half).toMatch(/^\[#+-+\] {2}50% {2}500 B of 1000 B$/);
    expect(full).toMatch(/^\[#+\] 100% {2}1000 B of 1000 B$/);
    const filled = (line: string) => (line.match(/#/g) ?? []).length;
    const left = (line: string) => (line.match(/-/g) ?? []).length;
    expect(Math.abs(filled(half) - left(half))).toBeLessThanOrEqual(1);
    for (const line of [empty, half, full]) expect(line).toHaveLength(39);
    expect(progressBar(at(3 * 1024 ** 2, 8 * 1024 ** 2), 60)).toHaveLength(59);
  });

  it("writes sizes in binary units", () => {
    expect(bytes(512)).toBe("512 B");
    expect(bytes(1536)).toBe("1.5 KiB");
    expect(bytes(5 * 1024 ** 3)).toBe("5.0 GiB");
  });

  it("writes one plain line per 10 % off a terminal, however many chunks arrive", () => {
    const out: string[] = [];
    const reporter = progressReporter({ write: (t) => out.push(t), isTTY: false });
    for (let received = 0; received <= 1000; received += 7) reporter.update(at(received));
    reporter.update(at(1000));
    reporter.done();
    expect(out).toHaveLength(11);
    expect(out[0]).toBe("downloaded 0%: 0 B of 1000 B\n");
    expect(out.at(-1)).toBe("downloaded 100%: 1000 B of 1000 B\n");
  });

  it("says where a resumed download started", () => {
    const out: string[] = [];
    progressReporter({ write: (t) => out.push(t), isTTY: false }).update(at(600, 1000, 400));
    expect(out).toEqual(["downloaded 60%: 600 B of 1000 B (resumed at 400 B)\n"]);
  });

  it("redraws the bar in place on a terminal at most ten times a second, always drawing the end", () => {
    const out: string[] = [];
    let clock = 0;
    const reporter = progressReporter({ write: (t) => out.push(t), isTTY: true, columns: 40 }, () => clock);
    reporter.update(at(100));
    clock += 50;
    reporter.update(at(200)); // within 100 ms: skipped
    clock += 60;
    reporter.update(at(300));
    reporter.update(at(1000)); // the end is always drawn
    reporter.done();
    expect(out).toEqual([
      `\r${progressBar(at(100), 40)}`,
      `\r${progressBar(at(300), 40)}`,
      `\r${progressBar(at(1000), 40)}`,
      "\n",
    ]);
  });
});

describe("following a log", () => {
  it("prints every line once as the log grows", () => {
    const printed: string[] = [];
    const printer = linePrinter((line) => printed.push(line));
    printer.print(["queued"]);
    printer.print(["queued", "fetching"]);
    printer.print(["queued", "fetching"]);
    printer.print(["queued", "fetching", "deploying", "finished"]);
    expect(printed).toEqual(["queued", "fetching", "deploying", "finished"]);
  });
});
