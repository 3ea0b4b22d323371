/**
 * Stackwright's display of an engine run, built from the engine's events as they come (the event
 * log the engine writes, engine/run.ts): per stack, one line per planned or made change in the
 * summary's words (changes.ts), a deployment's progress (the providers' `[stackwright] …` lines,
 * which reach the engine as diagnostics), warnings and errors (a failed deployment's error
 * carries the last lines of its log). On a terminal the progress is a live line per running stack,
 * redrawn in place; in a CI log, with NO_COLOR or on a dumb terminal it is one line per state
 * change, with no escape code at all.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { terminalText } from "../../safe-text";
import type { EngineOperation } from "../engine/run";
import type { Sink } from "../kit/output";
import { changeOfStep, changeText, deploymentOfOutputs, diagnosticText, type ChangeLine } from "./changes";

/**
 * A provider's progress line: `<subject> on|of|into <stack>/<environment><rest>`, or one of a
 * stack alone (`git fetch 900 of acme-web queued`).
 */
const PROGRESS_ENV = /^(.*?) (?:on|of|into) ([A-Za-z0-9._-]+\/[A-Za-z0-9._-]+)(.*)$/;
const PROGRESS_STACK = /^(.*?) (?:on|of|into) ([A-Za-z0-9._-]+)(.*)$/;

/** A line that escapes may redraw: a terminal, with colour allowed (https://no-color.org). */
export function liveDisplay(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return stream.isTTY === true && (env["NO_COLOR"] ?? "") === "" && env["TERM"] !== "dumb";
}

export interface DisplayOptions {
  readonly operation: EngineOperation;
  readonly out: Sink;
  /** A live line per running stack, redrawn in place (a terminal); else one line per state change. */
  readonly live: boolean;
  /** The terminal's width, for a live line that must not wrap. */
  readonly columns?: () => number | undefined;
}

/** One stack's part of the display: its events as they come, and its end. */
export interface StackDisplay {
  event(event: EngineEvent): void;
  end(): void;
}

/** The display of a whole run: every stack's lines, and the live region below them. */
export class RunDisplay {
  readonly #options: DisplayOptions;
  readonly #live = new Map<object, string>();
  #drawn = 0;

  constructor(options: DisplayOptions) {
    this.#options = options;
  }

  /** Prints lines above the live region (which is drawn again below them). */
  line(text: string): void {
    const lines = text.split("\n").map((l) => terminalText(l));
    this.#write(`${lines.join("\n")}\n`);
  }

  /** The part of the display of the stack `apiStack`. */
  stack(apiStack: string): StackDisplay {
    return new StackView(this, apiStack, this.#options.operation, this.#options.live);
  }

  /** Clears the live region: what follows is printed after the run's lines. */
  close(): void {
    this.#live.clear();
    this.#write("");
  }

  /** @internal */
  setLive(key: object, text: string | undefined): void {
    if (!this.#options.live) return;
    if (text === undefined) this.#live.delete(key);
    else this.#live.set(key, text);
    this.#write("");
  }

  #write(permanent: string): void {
    if (!this.#options.live) {
      if (permanent !== "") this.#options.out.write(permanent);
      return;
    }
    // A terminal that does not say its width (0 or none) is taken as 80 columns.
    const columns = this.#options.columns?.() ?? 0;
    const width = (columns >= 20 ? columns : 80) - 1;
    const erase = this.#drawn === 0 ? "" : `\x1b[${this.#drawn}A\r\x1b[J`;
    const region = [...this.#live.values()].map((l) => {
      const text = terminalText(l);
      return text.length > width ? `${text.slice(0, width - 1)}…` : text;
    });
    this.#drawn = region.length;
    this.#options.out.write(`${erase}${permanent}${region.map((l) => `${l}\n`).join("")}`);
  }
}

class StackView implements StackDisplay {
  /** Steps under way (an `up`, `refresh` or `destroy`), said once they end. */
  readonly #started = new Map<string, ChangeLine>();
  /** The last state said per subject (`deployment 103`), so a CI log gets each state change once. */
  readonly #said = new Map<string, string>();
  #succeeded = false;

  constructor(
    private readonly display: RunDisplay,
    private readonly apiStack: string,
    private readonly operation: EngineOperation,
    private readonly live: boolean,
  ) {}

  event(event: EngineEvent): void {
    if (event.resourcePreEvent !== undefined) this.#step(event);
    else if (event.resOutputsEvent !== undefined) this.#ended(event);
    else if (event.resOpFailedEvent !== undefined) {
      const urn = event.resOpFailedEvent.metadata.urn;
      const started = this.#started.get(urn);
      if (started !== undefined) {
        this.#started.delete(urn);
        this.display.line(`${changeText(started)}: failed`);
      }
    } else if (event.diagnosticEvent !== undefined) this.#diagnostic(event.diagnosticEvent);
    else if (event.summaryEvent !== undefined) {
      // The engine sends the update's result; the SDK's typings leave it out.
      const summary = event.summaryEvent;
      this.#succeeded = "result" in summary && summary.result === "succeeded";
    }
  }

  end(): void {
    // Steps the engine reported no outputs for (a delete may not): said once the run has ended,
    // as done when it succeeded.
    for (const started of this.#started.values()) {
      this.display.line(`${changeText(started)}${this.#succeeded ? "" : ": not finished"}`);
    }
    this.#started.clear();
    this.display.setLive(this, undefined);
  }

  #step(event: EngineEvent): void {
    const change = changeOfStep(event);
    if (change === undefined) return;
    if (this.operation === "preview" || event.resourcePreEvent?.planning === true) {
      this.display.line(changeText(change));
      return;
    }
    this.#started.set(change.urn, change);
    this.display.setLive(this, `${changeText(change)} …`);
  }

  #ended(event: EngineEvent): void {
    const urn = event.resOutputsEvent?.metadata.urn ?? "";
    const started = this.#started.get(urn);
    if (started === undefined) return;
    this.#started.delete(urn);
    const d = deploymentOfOutputs(event);
    const made =
      d === undefined ? "" : `: deployment ${d.id} ${d.state}${d.link === undefined ? "" : ` ${d.link}`}`;
    this.display.line(`${changeText(started)}${made}`);
    this.display.setLive(this, undefined);
  }

  #diagnostic(diag: NonNullable<EngineEvent["diagnosticEvent"]>): void {
    const text = diagnosticText(diag.message);
    if (text === undefined) return;
    switch (diag.severity) {
      case "info":
      case "info#err":
        if (text.startsWith("[stackwright] ")) this.#progress(text.slice("[stackwright] ".length));
        else this.display.line(indented(`${this.apiStack}: `, text));
        return;
      case "warning":
        this.display.line(indented(`${this.apiStack}: warning: `, text));
        return;
      case "error":
        this.display.line(indented(`${this.apiStack}: error: `, text));
        return;
      default:
        return;
    }
  }

  #progress(text: string): void {
    for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
      const m = PROGRESS_ENV.exec(line) ?? PROGRESS_STACK.exec(line);
      const shown = m === null ? line : `${m[2] ?? ""}  ${m[1] ?? ""}${m[3] ?? ""}`;
      if (this.live) {
        this.display.setLive(this, shown);
        continue;
      }
      // A CI log: the platform's log lines are kept for a failure's tail; states are said once each.
      if (line.includes(" | ")) continue;
      const subject = m === null ? line : `${m[1] ?? ""} ${m[2] ?? ""}`;
      const state = shown.replace(/ \(\d+s\)$/, "");
      if (this.#said.get(subject) === state) continue;
      this.#said.set(subject, state);
      this.display.line(shown);
    }
  }
}

/** A message of several lines: the first after `head`, the others indented under it. */
function indented(head: string, text: string): string {
  const [first = "", ...rest] = text.split("\n");
  return [`${head}${first}`, ...rest.map((l) => `    ${l}`)].join("\n");
}
