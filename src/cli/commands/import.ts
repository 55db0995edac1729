// `moomem import`: load a JSONL export, streamed from a file or stdin, all or nothing.

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { MoomemError } from "../../node.ts";
import { type Command, type CommandContext, requireOne } from "../command.ts";
import { Interrupted, watchInterrupts } from "../interrupt.ts";
import { errorMessage } from "../io.ts";
import { formatBytes, plural } from "../output.ts";
import { createProgress, type Progress } from "../progress.ts";

/** Files smaller than this import before a bar would be worth drawing. */
const PROGRESS_MIN_BYTES = 1024 * 1024;

export const importCommand: Command = {
  name: "import",
  summary: "load a JSONL export into the store: every line is checked first, one bad line imports nothing",
  usage: "<file.jsonl | ->",
  options: {},
  details: [
    "Entries keep their ids, statuses, supersede chains, times and metadata; vectors",
    'made by another embedder are recomputed. "-" reads the export from stdin.',
    "Skipped lines are blank lines, the export header, and entries already in the store.",
    "Ctrl-C while the input is read imports nothing; once it is read, the import finishes",
    "(a second Ctrl-C stops at once: the import is then whole or absent, so run it again).",
    "",
    "examples:",
    "  moomem --dir ./restored import backup.jsonl",
    "  moomem export -u alice | moomem --dir ./other import -",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const file = requireOne(ctx, "the .jsonl file to import (or - for stdin)");
    const name = file === "-" ? "stdin" : file;
    let source: AsyncIterable<string>;
    let input: NodeJS.ReadableStream;
    let progress: Progress | undefined;
    if (file === "-") {
      input = ctx.io.stdin;
      input.setEncoding("utf8");
      source = linesOf(input as AsyncIterable<string>, name, () => undefined, () => watch.commit(), () => watch.stopped);
    } else {
      const size = await fileSize(file);
      const stream = createReadStream(file, { encoding: "utf8" });
      input = stream;
      const bar = createProgress(ctx.io.stderr, { label: "importing", total: size, format: formatBytes, minTotal: PROGRESS_MIN_BYTES });
      progress = bar;
      source = linesOf(stream, file, () => bar.update(stream.bytesRead), () => watch.commit(), () => watch.stopped);
    }
    // The store reads the whole input before it writes anything (one bad line imports nothing): a
    // Ctrl-C until then stops the reading and leaves the store unchanged; after it, the import finishes.
    // The input is destroyed without an error: an "error" event could come before anyone listens (the
    // store may still be opening) and crash the process; linesOf sees the stop and ends the import.
    const watch = watchInterrupts(
      {
        stop: () => (input as { destroy?: () => void }).destroy?.(),
        finishing: () => ctx.out.notice("Ctrl-C: the whole input was read, so the import is finishing (all or nothing); press Ctrl-C again to stop at once"),
        abandoned: () => "stopped while the import was being written; it is all or nothing: run it again to be sure (entries already there are skipped)",
      },
      ctx.io.stderr,
    );
    let completed = false;
    let summary;
    try {
      const store = await ctx.open({ readOnly: false, embeds: true });
      summary = await store.import(source);
      completed = true;
    } catch (error) {
      if (watch.stopped) throw new Interrupted(`stopped while reading ${name}; nothing was imported, the store is unchanged`);
      throw error;
    } finally {
      watch.end();
      progress?.finish(completed);
    }
    if (ctx.out.json) {
      ctx.out.data(summary);
      return;
    }
    const skipped = summary.skipped === 0 ? "" : ` (${plural(summary.skipped, "line", "lines")} skipped: the export header, blank lines, or entries already in the store)`;
    ctx.out.line(`imported ${plural(summary.entries, "entry", "entries")} of ${plural(summary.users, "user", "users")} from ${file === "-" ? "stdin" : file}${skipped}`);
  },
};

async function fileSize(file: string): Promise<number> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    throw new MoomemError("INVALID_ARGUMENT", `import: cannot read ${file}: ${errorMessage(error)}; pass the path of a .jsonl file written by moomem export`, { cause: error });
  }
  if (!info.isFile()) throw new MoomemError("INVALID_ARGUMENT", `import: ${file} is not a file; pass the path of a .jsonl file written by moomem export`);
  return info.size;
}

/**
 * Whole lines (each ending in "\n", so the store numbers them right) from a
 * text stream, one chunk in memory at a time. A read failure becomes IO_FAILURE;
 * a stop (Ctrl-C: the stream was destroyed) ends it with {@link Interrupted}.
 */
async function* linesOf(chunks: AsyncIterable<string>, name: string, onChunk: () => void, onEnd: () => void, stopped: () => boolean): AsyncGenerator<string> {
  let pending = "";
  let first = true;
  try {
    for await (const chunk of chunks) {
      onChunk();
      pending += first && chunk.startsWith("\uFEFF") ? chunk.slice(1) : chunk;
      first = false;
      let start = 0;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n", start)) {
        yield pending.slice(start, nl + 1);
        start = nl + 1;
      }
      pending = pending.slice(start);
    }
  } catch (error) {
    if (stopped()) throw new Interrupted(`stopped while reading ${name}`);
    throw new MoomemError("IO_FAILURE", `import: reading ${name} failed: ${errorMessage(error)}; nothing was imported`, { cause: error });
  }
  // A stream destroyed before or while it was read may also just end: that is not the whole input.
  if (stopped()) throw new Interrupted(`stopped while reading ${name}`);
  onEnd();
  if (pending.length > 0) yield pending + "\n";
}
