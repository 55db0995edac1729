// `moomem import`: load a JSONL export, streamed from a file or stdin, all or nothing.

import { createReadStream } from "node:fs";
import { mkdir, open as openFile, rename, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { MemoryStore, MoomemError, type ImportSummary } from "../../node.ts";
import { flag } from "../args.ts";
import { type Command, type CommandContext, requireOne } from "../command.ts";
import { Interrupted, watchInterrupts } from "../interrupt.ts";
import { errorMessage } from "../io.ts";
import { buildOpenOptions } from "../open-options.ts";
import { formatBytes, plural } from "../output.ts";
import { createProgress, type Progress } from "../progress.ts";

/** Files smaller than this import before a bar would be worth drawing. */
const PROGRESS_MIN_BYTES = 1024 * 1024;

export const importCommand: Command = {
  name: "import",
  summary: "load a JSONL export into the store: every line is checked first, one bad line imports nothing",
  usage: "[--partial] <file.jsonl | ->",
  options: {
    partial: { type: "boolean", description: "import an export whose header count does not match (cut short), or one without a header" },
  },
  details: [
    "Entries keep their ids, statuses, supersede chains, times and metadata; vectors",
    'made by another embedder are recomputed. "-" reads the export from stdin.',
    "Skipped lines are blank lines, the export header, and entries already in the store.",
    "The header's entry count must match (a cut export is refused) unless --partial.",
    "A failed import into a folder that did not exist leaves no folder behind.",
    "Ctrl-C while the input is read imports nothing; once it is read, the import finishes",
    "(a second Ctrl-C stops at once: the import is then whole or absent, so run it again).",
    "",
    "examples:",
    "  moomem --dir ./restored import backup.jsonl",
    "  moomem export -u alice | moomem --dir ./other import -",
    "  moomem --dir ./memory export | moomem --pg postgres://app@db:5432/memory import -",
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
      source = linesOf(
        input as AsyncIterable<string>,
        name,
        () => undefined,
        () => watch.commit(),
        () => watch.stopped,
      );
    } else {
      const size = await fileSize(file);
      const stream = createReadStream(file, { encoding: "utf8" });
      input = stream;
      const bar = createProgress(ctx.io.stderr, { label: "importing", total: size, format: formatBytes, minTotal: PROGRESS_MIN_BYTES });
      progress = bar;
      source = linesOf(
        stream,
        file,
        () => bar.update(stream.bytesRead),
        () => watch.commit(),
        () => watch.stopped,
      );
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
    const options = { partial: flag(ctx.values, "partial") };
    let completed = false;
    let summary: ImportSummary;
    try {
      // A PostgreSQL import is one transaction already (all or nothing); only a new folder needs the temp-folder dance.
      if (ctx.location.kind === "postgres" || (await exists(ctx.dir))) {
        const store = await ctx.open({ readOnly: false, embeds: true });
        summary = await store.import(source, options);
      } else {
        summary = await importIntoNewFolder(ctx, source, options);
      }
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
    const skipped =
      summary.skipped === 0 ? "" : ` (${plural(summary.skipped, "line", "lines")} skipped: the export header, blank lines, or entries already in the store)`;
    ctx.out.line(
      `imported ${plural(summary.entries, "entry", "entries")} of ${plural(summary.users, "user", "users")} from ${file === "-" ? "stdin" : file}${skipped}`,
    );
  },
};

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return false;
    throw new MoomemError("IO_FAILURE", `import: cannot look at ${path}: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * Imports into a store created in a temp folder next to `ctx.dir`, renamed into place once the
 * import is complete and the store closed: a failed import (a bad line, a cut export, a full disk)
 * leaves no folder behind, not even the parents it had to create. The temp name is this run's own,
 * so nothing else ever writes there.
 */
async function importIntoNewFolder(ctx: CommandContext, source: AsyncIterable<string>, options: { partial: boolean }): Promise<ImportSummary> {
  const target = resolve(ctx.dir);
  const parent = dirname(target);
  const createdParent = await makeParents(parent);
  const temp = join(parent, `.${basename(target)}.import-${process.pid}-${Date.now().toString(36)}.tmp`);
  let store: MemoryStore | undefined;
  try {
    store = await MemoryStore.open(temp, buildOpenOptions(ctx.values, ctx.io.env, { readOnly: false, embeds: true }));
    const summary = await store.import(source, options);
    await store.close();
    await rename(temp, target);
    await syncFolder(parent);
    return summary;
  } catch (error) {
    await store?.close().catch((closeError: unknown) => ctx.out.notice(`could not close the store in ${temp}: ${errorMessage(closeError)}`));
    await rm(temp, { recursive: true, force: true }).catch((rmError: unknown) => ctx.out.notice(`could not remove ${temp}: ${errorMessage(rmError)}`));
    if (createdParent !== null) await removeEmptyUpTo(parent, createdParent);
    if (error instanceof MoomemError) throw error;
    throw new MoomemError("IO_FAILURE", `import: cannot create the store in ${ctx.dir}: ${errorMessage(error)}; nothing was imported`, { cause: error });
  }
}

/** Creates `dir` and its missing parents; returns the topmost folder it created (null when `dir` existed). */
async function makeParents(dir: string): Promise<string | null> {
  let top: string | null = null;
  for (let path = dir; !(await exists(path)); path = dirname(path)) {
    top = path;
    if (dirname(path) === path) break;
  }
  if (top !== null) await mkdir(dir, { recursive: true });
  return top;
}

/** Removes `dir` and its parents up to `top`, each only while empty (rmdir refuses a folder with anything in it). */
async function removeEmptyUpTo(dir: string, top: string): Promise<void> {
  for (let path = dir; ; path = dirname(path)) {
    try {
      await rmdir(path);
    } catch {
      return; // not empty, or gone: someone else uses it now
    }
    if (path === top || dirname(path) === path) return;
  }
}

/** Makes a rename in `dir` durable (the new name reaches the disk with the folder's entry). */
async function syncFolder(dir: string): Promise<void> {
  const handle = await openFile(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function fileSize(file: string): Promise<number> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    throw new MoomemError("INVALID_ARGUMENT", `import: cannot read ${file}: ${errorMessage(error)}; pass the path of a .jsonl file written by moomem export`, {
      cause: error,
    });
  }
  if (!info.isFile()) throw new MoomemError("INVALID_ARGUMENT", `import: ${file} is not a file; pass the path of a .jsonl file written by moomem export`);
  return info.size;
}

/**
 * The text of a stream, chunk by chunk: the store splits it into lines (in linear time, however long
 * a line is) and numbers them. A read failure becomes IO_FAILURE; a stop (Ctrl-C: the stream was
 * destroyed) ends it with {@link Interrupted}.
 */
async function* linesOf(chunks: AsyncIterable<string>, name: string, onChunk: () => void, onEnd: () => void, stopped: () => boolean): AsyncGenerator<string> {
  try {
    for await (const chunk of chunks) {
      onChunk();
      yield chunk;
    }
  } catch (error) {
    if (stopped()) throw new Interrupted(`stopped while reading ${name}`);
    throw new MoomemError("IO_FAILURE", `import: reading ${name} failed: ${errorMessage(error)}; nothing was imported`, { cause: error });
  }
  // A stream destroyed before or while it was read may also just end: that is not the whole input.
  if (stopped()) throw new Interrupted(`stopped while reading ${name}`);
  onEnd();
}
