// Lets a read-only file backend follow its writer: reads only what was committed since its last read, or says when a full re-read is needed.

import type { EntryRecord } from "../../types.ts";
import { errorCode, readRange, type FileSystem } from "./file-system.ts";
import type { RecoveredStore } from "./file-recovery.ts";
import { FormatError } from "./format-error.ts";
import { HEAD, journalName } from "./file-layout.ts";
import { JournalScanner, type JournalScan } from "./journal-format.ts";
import { splitLines, type RawLine } from "../line-reader.ts";

/** Bytes of the last applied line kept to notice the journal being rewritten under the reader (its frame: n, s, t and CRC). */
const LAST_LINE_BYTES = 64;

/** Where a reader stands: what it applied, and how the files looked when it read them. */
export interface FollowPoint {
  gen: number;
  /** Identity of `head` (file, size, time) before the last full read; null when there was none. */
  head: string | null;
  /** Identity of the journal file read; null when the generation had no journal yet. */
  journalId: string | null;
  /** The journal as far as it was applied (its `goodEnd`); null when there was no journal. */
  scan: JournalScan | null;
  /** Journal size at the last look: while it stays the same there is nothing new to read (-1: read again anyway). */
  seenSize: number;
  /** The first bytes of the last applied line (or the header), as read then. */
  lastLine: Uint8Array | null;
}

/** What has changed since a follow point: new entry versions, or `"reload"` when only a full read can tell. */
export type CatchUp = { entries: EntryRecord[]; point: FollowPoint } | "reload" | null;

/** The identity of `head` (changes at every compaction: head is replaced by a rename), or null when there is none. */
export async function headIdentity(fs: FileSystem, dir: string): Promise<string | null> {
  const st = await fs.stat(`${dir}/${HEAD}`);
  return st === null ? null : `${st.id}:${st.size}:${st.mtimeMs}`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function lastLineOf(fs: FileSystem, path: string, scan: JournalScan): Promise<Uint8Array> {
  return readRange(fs, path, scan.lastStart, Math.min(LAST_LINE_BYTES, scan.goodEnd - scan.lastStart));
}

/** The follow point after a full read (`head` is the identity taken before that read began). */
export async function followPoint(fs: FileSystem, dir: string, recovered: RecoveredStore, head: string | null): Promise<FollowPoint> {
  const path = `${dir}/${journalName(recovered.gen)}`;
  const journal = recovered.journal;
  if (journal === null) return { gen: recovered.gen, head, journalId: null, scan: null, seenSize: 0, lastLine: null };
  try {
    const journalId = (await fs.stat(path))?.id ?? null;
    const lastLine = journalId === null ? null : await lastLineOf(fs, path, journal);
    return { gen: recovered.gen, head, journalId, scan: journal, seenSize: journal.torn === null ? journal.size : -1, lastLine };
  } catch (error) {
    // Compacted away since it was read: the next catch-up sees the new head and reads everything again.
    if (errorCode(error) !== "ENOENT") throw error;
    return { gen: recovered.gen, head, journalId: null, scan: journal, seenSize: -1, lastLine: null };
  }
}

/**
 * What the writer committed since `point`. Costs two `stat`s when nothing
 * changed. Reads the journal from where the reader stopped; a new `head` (a
 * compaction), a replaced, shortened or rewritten journal, or a line that no
 * longer reads as before all ask for a full re-read instead, so the reader
 * never applies a state the writer did not reach. Only whole operations are
 * applied: a write in progress (a torn tail, for now) is read again next time.
 */
export async function catchUp(fs: FileSystem, dir: string, point: FollowPoint): Promise<CatchUp> {
  if ((await headIdentity(fs, dir)) !== point.head) return "reload";
  const path = `${dir}/${journalName(point.gen)}`;
  const st = await fs.stat(path);
  const scan = point.scan;
  if (scan === null) return st === null ? null : "reload";
  if (st === null || st.id !== point.journalId || st.size < scan.goodEnd) return "reload";
  if (st.size === point.seenSize) return null;
  try {
    if (point.lastLine === null || !sameBytes(await lastLineOf(fs, path, scan), point.lastLine)) return "reload";
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "reload";
    throw error;
  }

  const scanner = JournalScanner.resume(scan);
  const latest = new Map<string, EntryRecord>();
  const linesBefore = 1 + scan.records;
  try {
    for await (const line of splitLines(fs.readChunks(path, scan.goodEnd))) {
      const shifted: RawLine = { ...line, number: line.number + linesBefore, start: line.start + scan.goodEnd, end: line.end + scan.goodEnd };
      const entries = scanner.accept(shifted);
      if (entries !== null) for (const entry of entries) latest.set(entry.id, entry);
    }
  } catch (error) {
    // What looks like damage from here may be a writer that cut a failed write back: a full read decides.
    // A journal deleted under us was compacted away: the same.
    if (error instanceof FormatError || errorCode(error) === "ENOENT") return "reload";
    throw error;
  }
  const next = scanner.finish();
  const entries = [...latest.values()].sort((a, b) => a.seq - b.seq);
  let lastLine = point.lastLine;
  try {
    if (next.lastStart !== scan.lastStart) lastLine = await lastLineOf(fs, path, next);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "reload";
    throw error;
  }
  // A torn tail may be a write still being copied in: look again next time even if the size stays the same.
  return { entries, point: { ...point, scan: next, seenSize: next.torn === null ? st.size : -1, lastLine } };
}
