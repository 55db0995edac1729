// Reading a file store's entries through its user index: one user's lines, or every entry as a stream (scan, compaction).

import type { EntryRecord } from "../../types.ts";
import { MoomemError, describeError } from "../../errors.ts";
import { entryFromJson } from "../record-codec.ts";
import { decodeUtf8, splitLines } from "../line-reader.ts";
import { readRange, type FileSystem } from "./file-system.ts";
import { FormatError } from "./format-error.ts";
import { corrupted } from "./file-recovery.ts";
import { SnapshotScanner } from "./snapshot-format.ts";
import type { LineToCheck, UserIndex } from "./user-index.ts";

/** Where the snapshot in force is: the store folder and the slot's file name (null: no snapshot yet). */
export interface SnapshotPlace {
  fs: FileSystem;
  dir: string;
  slot: string | null;
}

/** The bytes of these ranges of a file, through `readRanges` when the seam has it. */
async function readRanges(fs: FileSystem, path: string, ranges: readonly { start: number; length: number }[]): Promise<Uint8Array[]> {
  if (ranges.length === 0) return [];
  if (typeof fs.readRanges === "function") return fs.readRanges(path, ranges);
  const out: Uint8Array[] = [];
  for (const { start, length } of ranges) out.push(await readRange(fs, path, start, length));
  return out;
}

/** The entry a snapshot line holds; damage is `STORE_CORRUPTED` naming the file and the byte where the line starts. */
function decodeLine(place: SnapshotPlace, bytes: Uint8Array, start: number): EntryRecord {
  const fail = (why: string): MoomemError =>
    corrupted(place.dir, place.slot!, new FormatError(0, `the line at byte ${start}, which the index says holds an entry, ${why}`));
  const text = decodeUtf8(bytes);
  if (text === null) throw fail("is not valid UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fail("is not JSON");
  }
  try {
    return entryFromJson(value);
  } catch (error) {
    throw fail(error instanceof Error ? error.message : String(error));
  }
}

/** Reads the snapshot lines a journal entry may replace (at open): the index learns which ones it does. */
export async function checkReplacedLines(place: SnapshotPlace, index: UserIndex): Promise<void> {
  const lines: LineToCheck[] = index.toCheck();
  if (lines.length === 0 || place.slot === null) return;
  const bytes = await readRanges(place.fs, `${place.dir}/${place.slot}`, lines);
  lines.forEach((line, i) => index.checked(line, decodeLine(place, bytes[i]!, line.start).id));
}

/**
 * The latest version of each of `userId`'s entries, in seq order: the user's snapshot lines no journal
 * entry replaced, and the user's journal entries. A line that does not hold the entry the index says
 * (another user's, another seq) is `STORE_CORRUPTED`: a user is never handed what is not theirs.
 */
export async function readUserEntries(place: SnapshotPlace, index: UserIndex, userId: string): Promise<EntryRecord[]> {
  const lines = place.slot === null ? [] : index.linesOf(userId);
  const bytes = await readRanges(place.fs, `${place.dir}/${place.slot}`, lines);
  const latest = new Map<string, EntryRecord>();
  lines.forEach((line, i) => {
    const got = bytes[i]!;
    if (got.length !== line.length) throw corrupted(place.dir, place.slot!, new FormatError(0, `the file ends before the line at byte ${line.start}`));
    const entry = decodeLine(place, got, line.start);
    if (entry.userId !== userId || entry.seq !== line.seq) {
      throw corrupted(
        place.dir,
        place.slot!,
        new FormatError(0, `the line at byte ${line.start} is not the entry the index says (user ${userId}, seq ${line.seq})`),
      );
    }
    latest.set(entry.id, entry);
  });
  for (const entry of index.journalOf(userId)) latest.set(entry.id, entry);
  return [...latest.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * Every entry's latest version in seq order, streamed: the snapshot read line by line (checked as
 * recovery checks it) merged with the journal's entries. The journal's entries are taken when the
 * iteration starts.
 */
export async function* storedEntries(place: SnapshotPlace, index: UserIndex): AsyncGenerator<EntryRecord, void, undefined> {
  const journal = index.journalAll();
  let j = 0;
  if (place.slot !== null) {
    const scanner = new SnapshotScanner({ decode: true });
    try {
      for await (const line of splitLines(place.fs.readChunks(`${place.dir}/${place.slot}`))) {
        const entry = scanner.accept(line);
        if (entry === null) continue;
        while (j < journal.length && journal[j]!.seq < entry.seq) yield journal[j++]!;
        if (!index.isReplaced(entry.seq)) yield entry;
      }
      scanner.finish();
    } catch (error) {
      if (error instanceof FormatError) throw corrupted(place.dir, place.slot, error);
      if (error instanceof MoomemError) throw error;
      throw new MoomemError(
        "IO_FAILURE",
        `could not read ${place.dir}/${place.slot} (${describeError(error)}); no file was changed. Check the disk, then retry.`,
        {
          cause: error,
        },
      );
    }
  }
  while (j < journal.length) yield journal[j++]!;
}
