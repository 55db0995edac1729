// Reading a file store's entries through its index (v4 and older: user-index.ts; v5: section-index.ts): one user's entries, or every entry as a stream (scan, compaction).

import type { EntryRecord } from "../../types.ts";
import { MoomemError, describeError } from "../../errors.ts";
import { entryFromJson } from "../record-codec.ts";
import { decodeUtf8, splitLines } from "../line-reader.ts";
import { readRange, type FileSystem } from "./file-system.ts";
import { FormatError } from "./format-error.ts";
import { corrupted } from "./file-recovery.ts";
import { SnapshotScanner } from "./snapshot-format.ts";
import type { LineToCheck, UserIndex } from "./user-index.ts";
import { SectionIndex } from "./section-index.ts";
import { readSection, type SectionRecord } from "./sectioned-snapshot.ts";

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

/** A v5 section's format problem, or a read failure, as the error users see. */
async function guardSection<T>(place: SnapshotPlace, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof FormatError) throw corrupted(place.dir, place.slot!, error);
    if (error instanceof MoomemError) throw error;
    throw readFailure(place, error);
  }
}

function readFailure(place: SnapshotPlace, error: unknown): MoomemError {
  return new MoomemError(
    "IO_FAILURE",
    `could not read ${place.dir}/${place.slot} (${describeError(error)}); no file was changed. Check the disk, then retry.`,
    { cause: error },
  );
}

/** v5: one user's latest entries (its section read in one read and checked, merged with the journal). */
export async function readUserEntriesV5(place: SnapshotPlace, index: SectionIndex, userId: string): Promise<EntryRecord[]> {
  const section = place.slot === null ? undefined : index.sectionOf(userId);
  const lines = section === undefined ? [] : await guardSection(place, () => readSection(place.fs, `${place.dir}/${place.slot}`, section));
  return index.merge(userId, lines);
}

/** v5, at open: reads the sections the journal may touch, so the catalog counts what is in force and a collision is found now. */
export async function settleSections(place: SnapshotPlace, index: SectionIndex): Promise<void> {
  if (place.slot === null) return;
  for (const section of await guardSection(place, () => Promise.resolve(index.toSettle()))) {
    index.settle(section, await guardSection(place, () => readSection(place.fs, `${place.dir}/${place.slot}`, section)));
  }
}

/** A user's section being merged into seq order: its lines once read, and the next one. */
interface Cursor {
  section: SectionRecord;
  lines: EntryRecord[] | null;
  next: number;
  /** Seq of the next line (the table's `lo` before the section is read). */
  key: number;
}

/** A binary min-heap of cursors by `key`. */
class CursorHeap {
  readonly #items: Cursor[] = [];
  get size(): number {
    return this.#items.length;
  }
  push(cursor: Cursor): void {
    const items = this.#items;
    items.push(cursor);
    let i = items.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (items[up]!.key <= items[i]!.key) break;
      [items[up], items[i]] = [items[i]!, items[up]!];
      i = up;
    }
  }
  pop(): Cursor {
    const items = this.#items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && items[l]!.key < items[m]!.key) m = l;
        if (r < items.length && items[r]!.key < items[m]!.key) m = r;
        if (m === i) break;
        [items[m], items[i]] = [items[i]!, items[m]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * v5: every entry's latest version in seq order, streamed. Sections are merged by seq; a section is
 * read (and checked) only when the merge reaches its first seq, and dropped once passed, so a store whose
 * users wrote one after another holds about one section at a time.
 */
export async function* storedEntriesV5(place: SnapshotPlace, index: SectionIndex): AsyncGenerator<EntryRecord, void, undefined> {
  const journal = index.journalAll();
  let j = 0;
  const heap = new CursorHeap();
  if (place.slot !== null) for (const section of index.sections()) heap.push({ section, lines: null, next: 0, key: section.lo });
  while (heap.size > 0) {
    const cursor = heap.pop();
    if (cursor.lines === null) {
      cursor.lines = await guardSection(place, () => readSection(place.fs, `${place.dir}/${place.slot}`, cursor.section));
      index.merge(cursor.section.userId, cursor.lines);
    }
    const entry = cursor.lines[cursor.next++]!;
    if (cursor.next < cursor.lines.length) {
      cursor.key = cursor.lines[cursor.next]!.seq;
      heap.push(cursor);
    } else cursor.lines = [];
    while (j < journal.length && journal[j]!.seq < entry.seq) yield journal[j++]!;
    if (!index.isReplaced(entry)) yield entry;
  }
  while (j < journal.length) yield journal[j++]!;
}

/** Each user's latest entries, user by user in user id order: what a compaction writes as v5 sections. */
export async function* entriesByUser(place: SnapshotPlace, index: UserIndex | SectionIndex): AsyncGenerator<readonly [string, EntryRecord[]], void, undefined> {
  const users = index instanceof SectionIndex ? [...index.sections().map((s) => s.userId), ...index.journalOnlyUsers()] : index.users();
  users.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const userId of users) {
    const entries =
      index instanceof SectionIndex ? await readUserEntriesV5(place, index, userId) : await guardSection(place, () => readUserEntries(place, index, userId));
    yield [userId, entries] as const;
  }
}
