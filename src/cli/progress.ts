// A progress bar on stderr for long imports and exports, drawn only on a terminal so logs and pipes stay clean.

import type { OutStream } from "./io.ts";

/** Reports how far a long job got. */
export interface Progress {
  update(done: number): void;
  /** Ends the bar: drawn full when the job completed, left where it stopped when it failed. */
  finish(completed: boolean): void;
}

export interface ProgressOptions {
  /** What is happening, e.g. `importing`. */
  label: string;
  /** The amount at 100 %. */
  total: number;
  /** Renders an amount, e.g. as MiB or as a count of entries. */
  format: (amount: number) => string;
  /** Below this total the job is quick and no bar is drawn. */
  minTotal: number;
}

const REDRAW_MS = 100;
const NO_PROGRESS: Progress = { update: () => undefined, finish: () => undefined };

/** A bar that redraws at most every 100 ms; a no-op when `stream` is not a TTY or the job is small. */
export function createProgress(stream: OutStream, options: ProgressOptions): Progress {
  if (stream.isTTY !== true || options.total < options.minTotal || options.total <= 0) return NO_PROGRESS;
  let last = 0;
  let done = 0;
  let drawn = false;
  const draw = (): void => {
    const fraction = Math.min(1, done / options.total);
    const tail = ` ${Math.floor(fraction * 100)
      .toString()
      .padStart(3)}% ${options.format(done)} / ${options.format(options.total)}`;
    // A pseudo-terminal may report 0 columns; assume a classic 80 then.
    const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
    const barWidth = Math.max(10, Math.min(40, columns - options.label.length - tail.length - 4));
    const filled = Math.round(fraction * barWidth);
    drawn = true;
    stream.write(`\r${options.label} [${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]${tail}\x1b[K`);
  };
  return {
    update(amount: number): void {
      done = amount;
      const now = Date.now();
      if (now - last < REDRAW_MS) return;
      last = now;
      draw();
    },
    finish(completed: boolean): void {
      if (completed) {
        done = options.total;
        draw();
      }
      if (drawn) stream.write("\n");
    },
  };
}
