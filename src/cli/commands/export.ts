// `moomem export`: the store (or one user) as JSON Lines, streamed to stdout or written atomically to a file.

import { open, rename, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { MoomemError } from "../../node.ts";
import { stringOption } from "../args.ts";
import { type Command, type CommandContext, USER_OPTION, requireNone } from "../command.ts";
import { errorMessage, systemErrorCode, writeChunk } from "../io.ts";
import { plural } from "../output.ts";
import { createProgress, type Progress } from "../progress.ts";

/** Lines are batched into writes of about this size: few syscalls, constant memory. */
const WRITE_BATCH_CHARS = 64 * 1024;
/** Exports smaller than this finish before a bar would be worth drawing. */
const PROGRESS_MIN_ENTRIES = 10_000;

export const exportCommand: Command = {
  name: "export",
  summary: "write the store, or one user, as JSON Lines (stdout by default)",
  usage: "[-u <user>] [-o <file.jsonl>]",
  options: {
    user: { ...USER_OPTION, description: "only this user's entries (default: every user)" },
    output: { type: "string", short: "o", placeholder: "<file>", description: "write to this file (replaced atomically) instead of stdout" },
  },
  details: [
    "Line 1 is a header (format, embedder, count); then one entry per line, in the",
    "on-disk shape (snake_case). `moomem import` rebuilds an equivalent store from it.",
    "The export streams: memory use does not grow with the store.",
    "",
    "examples:",
    "  moomem export > backup.jsonl",
    "  moomem export -u alice -o alice.jsonl",
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const user = stringOption(ctx.values, "user");
    const file = stringOption(ctx.values, "output");
    const store = await ctx.open({ readOnly: true, embeds: false });
    const lines = store.export(user === undefined ? undefined : { userId: user });
    if (file === undefined || file === "-") {
      try {
        await copyLines(lines, (chunk) => writeChunk(ctx.io.stdout, chunk), ctx);
      } catch (error) {
        // The reader went away (e.g. `moomem export | head`): it has all it wanted.
        if (systemErrorCode(error) === "EPIPE") return;
        throw error;
      }
      return;
    }
    const entries = await exportToFile(lines, file, ctx);
    if (ctx.out.json) ctx.out.data({ file, entries });
    else ctx.out.line(`exported ${plural(entries, "entry", "entries")}${user === undefined ? "" : ` of ${user}`} to ${file}`);
  },
};

/** Copies the export in batches; resolves to the number of entries (lines after the header). */
async function copyLines(lines: AsyncIterable<string>, write: (chunk: string) => Promise<void>, ctx: CommandContext): Promise<number> {
  let progress: Progress | undefined;
  let entries = 0;
  let batch = "";
  let completed = false;
  try {
    for await (const line of lines) {
      if (progress === undefined) {
        progress = createProgress(ctx.io.stderr, { label: "exporting", total: headerCount(line), format: String, minTotal: PROGRESS_MIN_ENTRIES });
      } else {
        entries++;
        progress.update(entries);
      }
      batch += line;
      if (batch.length >= WRITE_BATCH_CHARS) {
        await write(batch);
        batch = "";
      }
    }
    if (batch.length > 0) await write(batch);
    completed = true;
  } finally {
    progress?.finish(completed);
  }
  return entries;
}

/** The entry count the export header announces (0 when it says none). */
function headerCount(line: string): number {
  try {
    const header = JSON.parse(line) as { count?: unknown };
    return typeof header.count === "number" ? header.count : 0;
  } catch (error) {
    throw new MoomemError("IO_FAILURE", `export: the store produced an unreadable header line (${errorMessage(error)})`);
  }
}

/** The permissions an export gets: those of the file it replaces, else private to the user (memories are personal). */
async function exportMode(file: string): Promise<number> {
  try {
    return (await stat(file)).mode & 0o777;
  } catch (error) {
    if (systemErrorCode(error) === "ENOENT") return 0o600;
    throw error;
  }
}

/** fsync of a folder, so a rename in it survives a power loss (folders cannot be opened for that on Windows). */
async function syncFolder(path: string): Promise<void> {
  if (process.platform === "win32") return;
  const folder = await open(path, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/**
 * Writes a temp file next to `file`, syncs it, then renames it over `file`: a failed export never leaves half a
 * file. The result keeps the mode of the file it replaces (0600 for a new one), whatever the umask says.
 */
async function exportToFile(lines: AsyncIterable<string>, file: string, ctx: CommandContext): Promise<number> {
  const temp = `${file}.${process.pid}.tmp`;
  const fail = (error: unknown): MoomemError =>
    error instanceof MoomemError ? error : new MoomemError("IO_FAILURE", `export: cannot write ${file}: ${errorMessage(error)}`, { cause: error });
  let handle;
  try {
    const mode = await exportMode(file);
    handle = await open(temp, "wx", mode);
    await handle.chmod(mode);
  } catch (error) {
    if (handle !== undefined) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
    }
    throw fail(error);
  }
  let entries: number;
  try {
    entries = await copyLines(
      lines,
      async (chunk) => {
        await handle.write(chunk);
      },
      ctx,
    );
    await handle.sync();
    await handle.close();
    await rename(temp, file);
  } catch (error) {
    await handle.close().catch((closeError: unknown) => ctx.out.notice(`could not close ${temp}: ${errorMessage(closeError)}`));
    await unlink(temp).catch((unlinkError: unknown) => ctx.out.notice(`could not remove ${temp}: ${errorMessage(unlinkError)}`));
    throw fail(error);
  }
  try {
    await syncFolder(dirname(file));
  } catch (error) {
    throw new MoomemError("IO_FAILURE", `export: wrote ${file}, but could not make its name durable (${errorMessage(error)}); a power loss now may lose it`, {
      cause: error,
    });
  }
  return entries;
}
