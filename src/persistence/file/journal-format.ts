// The journal file format (README, "On-disk layout and recovery"): a header naming its gen, then one CRC-checked line per committed batch, and the torn-tail rules.

import type { EntryRecord } from "../../types.ts";
import { entryFromJson, entryJsonText } from "../record-codec.ts";
import { crc32Update, crc32UpdateAscii } from "../crc32.ts";
import { FormatError } from "./format-error.ts";
import { concat, decodeUtf8, encodeUtf8, type RawLine } from "../line-reader.ts";

/**
 * Version named in the header of every journal this moomem starts. v4 holds entry format 4 (the store's
 * bookkeeping in `lifecycle`); v3 writes mostly-zero vectors by their non-zero components (record-codec).
 * v2 and v3 journals are still read, and appended to in their own version (v2: dense vectors; both: the
 * bookkeeping in metadata) until the next compaction replaces them, so a file never holds lines newer
 * than its header.
 */
export const JOURNAL_FORMAT_VERSION = 4;

/** The oldest journal version still read. */
const OLDEST_JOURNAL_VERSION = 2;

/**
 * One committed batch as it sits in the journal.
 *
 * Line layout (every byte is checked on read):
 * `{"n":N,"s":S,"t":T,"crc":C,"entries":[…]}`, or
 * `{"n":N,"s":S,"t":T,"c":1,"crc":C,"entries":[…]}` for a batch that continues, where
 * - `n` is the record's sequence number in this journal (1, 2, 3, …);
 * - `s` says how many records of this journal were already durable (fdatasynced)
 *   when this one was written, so a later good line proves which earlier lines
 *   had reached the disk: damage before that point is corruption, not a torn write;
 * - `t` is the write time in ms since epoch (`stats().lastWriteAt` after a reopen);
 * - `"c":1` marks a batch that is atomic together with the next record: a large
 *   operation is written as a run `c, c, …, <last without c>` by one append
 *   (so all its lines share `s` and `t`), and replay applies the run only once
 *   its last line is read. A line without the field ends an operation; the
 *   journals written before the field existed hold only such lines and read
 *   as before, so the flag needed no new version (a moomem older than the field
 *   reads a `c` line as a bad line: see docs/decisions.md);
 * - `C` is the CRC-32 of the ASCII text `G:N:S:T:` (G = the journal's gen),
 *   or `G:N:S:T:c:` for a line with `"c":1`, followed by the UTF-8 bytes of
 *   the `entries` array text. The prefix is compared byte for byte with its
 *   canonical rendering, so a damaged byte anywhere in the line is caught
 *   (the flag included: dropping or adding it changes the CRC input), and a
 *   line copied from another journal (other gen) fails its CRC.
 */
export interface JournalRecord {
  n: number;
  synced: number;
  time: number;
  /** True when this batch is atomic together with the next record (see `"c"` above). */
  continues?: boolean;
  entries: EntryRecord[];
}

/** The journal's first line. */
export function encodeJournalHeader(gen: number): string {
  return `{"journal":${JOURNAL_FORMAT_VERSION},"gen":${gen}}\n`;
}

/** Reads a journal header line; throws {@link FormatError} (line 1) when it is not one this version wrote. */
export function parseJournalHeader(text: string): { gen: number; version: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormatError(1, "the journal header is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FormatError(1, "the journal header is not a JSON object");
  const o = value as Record<string, unknown>;
  const version = o["journal"];
  if (typeof version !== "number" || !Number.isInteger(version) || version < OLDEST_JOURNAL_VERSION || version > JOURNAL_FORMAT_VERSION) {
    if (typeof version === "number") {
      throw new FormatError(
        1,
        `journal format version ${version} is not supported (this moomem reads versions ${OLDEST_JOURNAL_VERSION} to ${JOURNAL_FORMAT_VERSION})`,
        "version",
      );
    }
    throw new FormatError(1, "the journal header has no version");
  }
  const gen = o["gen"];
  if (typeof gen !== "number" || !Number.isSafeInteger(gen) || gen < 0) throw new FormatError(1, `the journal header has a bad gen (${String(gen)})`);
  if (Object.keys(o).length !== 2) throw new FormatError(1, "the journal header has unexpected fields");
  return { gen, version };
}

function prefix(n: number, synced: number, time: number, continues: boolean, crc: number): string {
  return `{"n":${n},"s":${synced},"t":${time},${continues ? '"c":1,' : ""}"crc":${crc},"entries":`;
}

function checksumStart(gen: number, n: number, synced: number, time: number, continues: boolean): number {
  return crc32UpdateAscii(0, `${gen}:${n}:${synced}:${time}:${continues ? "c:" : ""}`);
}

const CLOSE = encodeUtf8("}\n");

const utf8 = new TextEncoder();

/**
 * One journal line (with its newline) holding one batch, in the format of a journal of `version`
 * (sparse vectors from v3 on, `lifecycle` from v4 on). `time` is rounded to whole ms.
 */
export function encodeJournalRecord(gen: number, record: JournalRecord, version: number = JOURNAL_FORMAT_VERSION): Uint8Array {
  const time = Number.isFinite(record.time) ? Math.max(0, Math.round(record.time)) : 0;
  const continues = record.continues === true;
  const sparse = version >= 3;
  const legacy = version < 4;
  const text = `[${record.entries.map((entry) => entryJsonText(entry, sparse, legacy)).join(",")}]`;
  const start = checksumStart(gen, record.n, record.synced, time, continues);
  return (
    encodeInPlace(text, start, (crc) => prefix(record.n, record.synced, time, continues, crc)) ??
    encodeCopying(text, start, (crc) => prefix(record.n, record.synced, time, continues, crc))
  );
}

/**
 * The same bytes as {@link encodeCopying}, written once into one buffer: the body is encoded after room
 * for the longest prefix, and the prefix (which holds the body's CRC, so comes last) right before it.
 * Null when the body is not all ASCII (then its UTF-8 is longer than its text and the room is wrong).
 * Spares the body's copy into a second buffer, which a large import paid for every journal line.
 */
function encodeInPlace(text: string, start: number, prefixOf: (crc: number) => string): Uint8Array | null {
  // Ten digits is the longest CRC: the prefix is at most this long.
  const room = prefixOf(4_294_967_295).length;
  const out = new Uint8Array(room + text.length + CLOSE.length);
  const body = out.subarray(room, room + text.length);
  const { read, written } = utf8.encodeInto(text, body);
  if (read !== text.length || written !== text.length) return null;
  const head = prefixOf(crc32Update(start, body));
  const from = room - head.length;
  for (let i = 0; i < head.length; i++) out[from + i] = head.charCodeAt(i);
  out.set(CLOSE, room + text.length);
  return from === 0 ? out : out.subarray(from);
}

function encodeCopying(text: string, start: number, prefixOf: (crc: number) => string): Uint8Array {
  const body = encodeUtf8(text);
  const crc = crc32Update(start, body);
  return concat([encodeUtf8(prefixOf(crc)), body, CLOSE]);
}

/** A line whose framing and CRC are right; its entries are decoded separately. */
export interface CheckedJournalLine {
  n: number;
  synced: number;
  time: number;
  continues: boolean;
  entriesText: string;
}

const PREFIX = /^\{"n":(0|[1-9]\d{0,15}),"s":(0|[1-9]\d{0,15}),"t":(0|[1-9]\d{0,15}),("c":1,)?"crc":(0|[1-9]\d{0,9}),"entries":/;

/**
 * Checks one journal line (without its newline): framing and CRC, not the
 * entries. Returns the reason it is bad, or the checked line.
 */
export function checkJournalLine(gen: number, bytes: Uint8Array): CheckedJournalLine | string {
  if (bytes.length === 0) return "empty line";
  const text = decodeUtf8(bytes);
  if (text === null) return "not valid UTF-8";
  const m = PREFIX.exec(text);
  if (m === null) return "not a journal record";
  const n = Number(m[1]);
  const synced = Number(m[2]);
  const time = Number(m[3]);
  const continues = m[4] !== undefined;
  const crc = Number(m[5]);
  const head = m[0];
  if (!text.endsWith("}") || text.length < head.length + 1) return "the record is cut short";
  // The prefix is ASCII, so its length in chars is its length in bytes.
  const body = bytes.subarray(head.length, bytes.length - 1);
  const actual = crc32Update(checksumStart(gen, n, synced, time, continues), body);
  if (actual !== crc) return `CRC mismatch (stored ${crc}, computed ${actual})`;
  return { n, synced, time, continues, entriesText: text.slice(head.length, -1) };
}

/** Decodes the entries of a checked line; throws a plain Error naming the bad entry. */
export function decodeJournalEntries(line: CheckedJournalLine): EntryRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(line.entriesText);
  } catch (error) {
    throw new Error(`entries are not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  if (!Array.isArray(value)) throw new Error("entries is not a JSON array");
  const out: EntryRecord[] = [];
  for (let i = 0; i < value.length; i++) {
    try {
      out.push(entryFromJson(value[i]));
    } catch (error) {
      throw new Error(`entry ${i + 1}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  return out;
}

/** What scanning a whole journal found. */
export interface JournalScan {
  gen: number;
  /** Good records, all of which are applied (the lines of an unfinished run are not counted). */
  records: number;
  /** Byte offset just past the last good line that ends an operation (where a torn tail is cut). */
  goodEnd: number;
  /** Byte offset just past the header. */
  headerEnd: number;
  /** The format version its header names (appends keep to it). */
  version: number;
  /**
   * Where the torn tail starts and why, or null when the file ends cleanly:
   * the first bad line, or the first line of an operation that was never finished.
   */
  torn: { line: number; reason: string } | null;
  /** Write time of the last applied record, or null when there is none. */
  lastTime: number | null;
  /** Byte offset where the last applied line starts (the header's 0 when none was applied). */
  lastStart: number;
}

/** A run of `"c":1` lines read so far, waiting for the line that ends it. */
interface OpenRun {
  /** Line number of its first line. */
  line: number;
  /** Its first record number. */
  n: number;
  /** The `s` and `t` every line of the run shares (one append wrote it). */
  synced: number;
  time: number;
  records: number;
  entries: EntryRecord[];
}

/**
 * Applies the recovery rules to a journal, line by line:
 * - the header must name `expectedGen` and this format version;
 * - good records must be numbered 1, 2, 3, …;
 * - a run of `"c":1` lines is applied only when the line that ends it is
 *   read, all together; every line of it must share the run's `s` and `t`;
 * - a bad line (no newline, empty, not JSON, bad CRC, broken sequence, a
 *   line that cannot continue the unfinished run before it) is a torn tail,
 *   and so is a run still unfinished at the end of the file. The tail starts
 *   at the first record not applied: the bad line, or the first line of the
 *   run it broke. It is damage instead when a line with a good CRC says that
 *   this first record had already been made durable when it was written.
 *
 * Why a line that cannot continue a run is torn and not damage: after a
 * write that failed and was cut back off the file, the retry lands on the
 * same offsets with the same record numbers; a power loss before the retry
 * is synced may leave lines of both on disk. Nothing of it was durable (no
 * line vouches for it), which is exactly the torn-tail case.
 *
 * `accept` returns the entries of each good record or finished run (to apply
 * in order) and throws {@link FormatError} on damage; `finish` tells where
 * the good part ends.
 */
export class JournalScanner {
  readonly #expectedGen: number;
  #headerEnd = -1;
  #version = JOURNAL_FORMAT_VERSION;
  #records = 0;
  #goodEnd = 0;
  #lastTime: number | null = null;
  #lastStart = 0;
  #run: OpenRun | null = null;
  #bad: { line: number; reason: string; n: number } | null = null;

  constructor(expectedGen: number) {
    this.#expectedGen = expectedGen;
  }

  /**
   * A scanner that goes on where an earlier scan of the same journal ended
   * cleanly (at its `goodEnd`): feed it the lines that follow (a reader
   * following a writer reads only what was appended since).
   */
  static resume(scan: JournalScan): JournalScanner {
    const scanner = new JournalScanner(scan.gen);
    scanner.#headerEnd = scan.headerEnd;
    scanner.#version = scan.version;
    scanner.#records = scan.records;
    scanner.#goodEnd = scan.goodEnd;
    scanner.#lastTime = scan.lastTime;
    scanner.#lastStart = scan.lastStart;
    return scanner;
  }

  accept(line: RawLine): EntryRecord[] | null {
    if (this.#headerEnd < 0) {
      this.#header(line);
      return null;
    }
    const checked = line.terminated ? checkJournalLine(this.#expectedGen, line.bytes) : "no newline at the end (the write was cut short)";
    if (this.#bad !== null) {
      // Past the first bad line: nothing is applied; a good line only matters if it vouches for the bad one.
      if (typeof checked !== "string") this.#vouch(checked, line.number);
      return null;
    }
    const run = this.#run;
    const expected = this.#records + (run?.records ?? 0) + 1;
    if (typeof checked === "string") {
      this.#tear(line.number, checked);
      return null;
    }
    if (checked.n !== expected) {
      this.#tear(line.number, `record number ${checked.n} where ${expected} was expected`);
      return null;
    }
    if (checked.synced >= checked.n) {
      throw new FormatError(line.number, `record ${checked.n} claims ${checked.synced} records were durable before it`);
    }
    if (run !== null && (checked.synced !== run.synced || checked.time !== run.time)) {
      this.#tear(line.number, `record ${checked.n} was written by another write than the records before it, which say that their operation goes on`);
      this.#vouch(checked, line.number);
      return null;
    }
    let entries: EntryRecord[];
    try {
      entries = decodeJournalEntries(checked);
    } catch (error) {
      // The CRC matched, so these bytes were written like this: not a torn write.
      throw new FormatError(line.number, error instanceof Error ? error.message : String(error));
    }
    if (checked.continues) {
      if (run === null) {
        this.#run = { line: line.number, n: checked.n, synced: checked.synced, time: checked.time, records: 1, entries };
      } else {
        run.records += 1;
        for (const entry of entries) run.entries.push(entry);
      }
      return null;
    }
    if (run !== null) {
      for (const entry of entries) run.entries.push(entry);
      entries = run.entries;
      this.#records += run.records;
      this.#run = null;
    }
    this.#records += 1;
    this.#goodEnd = line.end;
    this.#lastTime = checked.time;
    this.#lastStart = line.start;
    return entries;
  }

  /** Starts the torn tail at the first record not applied: this line, or the first line of the run it breaks. */
  #tear(lineNumber: number, reason: string): void {
    const run = this.#run;
    this.#run = null;
    this.#bad = {
      line: lineNumber,
      reason: run === null ? reason : `${reason}; so the operation that began on line ${run.line} is incomplete`,
      n: this.#records + 1,
    };
  }

  /** Throws when a line with a good CRC proves that the first record of the torn tail had been made durable. */
  #vouch(checked: CheckedJournalLine, lineNumber: number): void {
    const bad = this.#bad;
    if (bad === null || checked.synced < bad.n) return;
    throw new FormatError(
      bad.line,
      `${bad.reason}; line ${lineNumber} was written after record ${bad.n} had been made durable, so this is damage, not a torn write`,
    );
  }

  #header(line: RawLine): void {
    // The header is written to a temp file and synced before the rename, so it is never torn.
    if (!line.terminated) throw new FormatError(1, "the journal header has no newline");
    const text = decodeUtf8(line.bytes);
    if (text === null) throw new FormatError(1, "the journal header is not valid UTF-8");
    const { gen, version } = parseJournalHeader(text);
    this.#version = version;
    if (gen !== this.#expectedGen) throw new FormatError(1, `the journal header names gen ${gen} but its file name says gen ${this.#expectedGen}`);
    this.#headerEnd = line.end;
    this.#goodEnd = line.end;
  }

  finish(): JournalScan {
    if (this.#headerEnd < 0) throw new FormatError(1, "the journal is empty (no header)");
    const run = this.#run;
    let torn: { line: number; reason: string } | null = null;
    if (this.#bad !== null) {
      torn = { line: this.#bad.line, reason: this.#bad.reason };
    } else if (run !== null) {
      const last = run.line + run.records - 1;
      torn = {
        line: run.line,
        reason: `the operation that began on line ${run.line} was never finished (line ${last}, the last one, says another record follows)`,
      };
    }
    return {
      gen: this.#expectedGen,
      records: this.#records,
      goodEnd: this.#goodEnd,
      headerEnd: this.#headerEnd,
      version: this.#version,
      torn,
      lastTime: this.#lastTime,
      lastStart: this.#lastStart,
    };
  }
}
