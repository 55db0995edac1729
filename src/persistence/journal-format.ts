// The journal file format (DESIGN §5): a header naming its gen, then one CRC-checked line per committed batch, and the torn-tail rules.

import type { EntryRecord } from "../types.ts";
import { entryFromJson, entryToJson } from "./record-codec.ts";
import { crc32Update, crc32UpdateAscii } from "./crc32.ts";
import { FormatError } from "./format-error.ts";
import { concat, decodeUtf8, encodeUtf8, type RawLine } from "./line-reader.ts";

/** Version named in every journal header. */
export const JOURNAL_FORMAT_VERSION = 2;

/**
 * One committed batch as it sits in the journal.
 *
 * Line layout (every byte is checked on read):
 * `{"n":N,"s":S,"t":T,"crc":C,"entries":[…]}` where
 * - `n` is the record's sequence number in this journal (1, 2, 3, …);
 * - `s` says how many records of this journal were already durable (fdatasynced)
 *   when this one was written, so a later good line proves which earlier lines
 *   had reached the disk: damage before that point is corruption, not a torn write;
 * - `t` is the write time in ms since epoch (`stats().lastWriteAt` after a reopen);
 * - `C` is the CRC-32 of the ASCII text `G:N:S:T:` (G = the journal's gen)
 *   followed by the UTF-8 bytes of the `entries` array text. The prefix is
 *   compared byte for byte with its canonical rendering, so a damaged byte
 *   anywhere in the line is caught, and a line copied from another journal
 *   (other gen) fails its CRC.
 */
export interface JournalRecord {
  n: number;
  synced: number;
  time: number;
  entries: EntryRecord[];
}

/** The journal's first line. */
export function encodeJournalHeader(gen: number): string {
  return `{"journal":${JOURNAL_FORMAT_VERSION},"gen":${gen}}\n`;
}

/** Reads a journal header line; throws {@link FormatError} (line 1) when it is not one this version wrote. */
export function parseJournalHeader(text: string): { gen: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormatError(1, "the journal header is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FormatError(1, "the journal header is not a JSON object");
  const o = value as Record<string, unknown>;
  const version = o["journal"];
  if (version !== JOURNAL_FORMAT_VERSION) {
    if (typeof version === "number") {
      throw new FormatError(1, `journal format version ${version} is not supported (this moomem reads version ${JOURNAL_FORMAT_VERSION})`, "version");
    }
    throw new FormatError(1, "the journal header has no version");
  }
  const gen = o["gen"];
  if (typeof gen !== "number" || !Number.isSafeInteger(gen) || gen < 0) throw new FormatError(1, `the journal header has a bad gen (${String(gen)})`);
  if (Object.keys(o).length !== 2) throw new FormatError(1, "the journal header has unexpected fields");
  return { gen };
}

function prefix(n: number, synced: number, time: number, crc: number): string {
  return `{"n":${n},"s":${synced},"t":${time},"crc":${crc},"entries":`;
}

function checksumStart(gen: number, n: number, synced: number, time: number): number {
  return crc32UpdateAscii(0, `${gen}:${n}:${synced}:${time}:`);
}

const CLOSE = encodeUtf8("}\n");

/** One journal line (with its newline) holding one batch. `time` is rounded to whole ms. */
export function encodeJournalRecord(gen: number, record: JournalRecord): Uint8Array {
  const time = Number.isFinite(record.time) ? Math.max(0, Math.round(record.time)) : 0;
  const body = encodeUtf8(JSON.stringify(record.entries.map(entryToJson)));
  const crc = crc32Update(checksumStart(gen, record.n, record.synced, time), body);
  return concat([encodeUtf8(prefix(record.n, record.synced, time, crc)), body, CLOSE]);
}

/** A line whose framing and CRC are right; its entries are decoded separately. */
export interface CheckedJournalLine {
  n: number;
  synced: number;
  time: number;
  entriesText: string;
}

const PREFIX = /^\{"n":(0|[1-9]\d{0,15}),"s":(0|[1-9]\d{0,15}),"t":(0|[1-9]\d{0,15}),"crc":(0|[1-9]\d{0,9}),"entries":/;

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
  const crc = Number(m[4]);
  const head = m[0];
  if (!text.endsWith("}") || text.length < head.length + 1) return "the record is cut short";
  // The prefix is ASCII, so its length in chars is its length in bytes.
  const body = bytes.subarray(head.length, bytes.length - 1);
  const actual = crc32Update(checksumStart(gen, n, synced, time), body);
  if (actual !== crc) return `CRC mismatch (stored ${crc}, computed ${actual})`;
  return { n, synced, time, entriesText: text.slice(head.length, -1) };
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
  /** Good records, all of which are applied. */
  records: number;
  /** Byte offset just past the last good line (where a torn tail is cut). */
  goodEnd: number;
  /** Byte offset just past the header. */
  headerEnd: number;
  /** The first bad line of a torn tail, or null when the file ends cleanly. */
  torn: { line: number; reason: string } | null;
  /** Write time of the last good record, or null when there is none. */
  lastTime: number | null;
}

/**
 * Applies the recovery rules to a journal, line by line:
 * - the header must name `expectedGen` and this format version;
 * - good records must be numbered 1, 2, 3, …;
 * - a bad line (no newline, empty, not JSON, bad CRC, broken sequence) is a
 *   torn tail, unless a later line with a good CRC says that the bad line had
 *   already been made durable when it was written: then the journal is damaged.
 *
 * `accept` returns the entries of each good record (to apply in order) and
 * throws {@link FormatError} on damage; `finish` tells where the good part ends.
 */
export class JournalScanner {
  readonly #expectedGen: number;
  #headerEnd = -1;
  #records = 0;
  #goodEnd = 0;
  #lastTime: number | null = null;
  #bad: { line: number; reason: string; n: number } | null = null;

  constructor(expectedGen: number) {
    this.#expectedGen = expectedGen;
  }

  accept(line: RawLine): EntryRecord[] | null {
    if (this.#headerEnd < 0) {
      this.#header(line);
      return null;
    }
    const checked = line.terminated ? checkJournalLine(this.#expectedGen, line.bytes) : "no newline at the end (the write was cut short)";
    if (this.#bad !== null) {
      // Past the first bad line: nothing is applied; a good line only matters if it vouches for the bad one.
      if (typeof checked !== "string" && checked.synced >= this.#bad.n) {
        throw new FormatError(
          this.#bad.line,
          `${this.#bad.reason}; line ${line.number} was written after record ${this.#bad.n} had been made durable, so this is damage, not a torn write`,
        );
      }
      return null;
    }
    const expected = this.#records + 1;
    if (typeof checked === "string") {
      this.#bad = { line: line.number, reason: checked, n: expected };
      return null;
    }
    if (checked.n !== expected) {
      this.#bad = { line: line.number, reason: `record number ${checked.n} where ${expected} was expected`, n: expected };
      return null;
    }
    if (checked.synced >= checked.n) {
      throw new FormatError(line.number, `record ${checked.n} claims ${checked.synced} records were durable before it`);
    }
    let entries: EntryRecord[];
    try {
      entries = decodeJournalEntries(checked);
    } catch (error) {
      // The CRC matched, so these bytes were written like this: not a torn write.
      throw new FormatError(line.number, error instanceof Error ? error.message : String(error));
    }
    this.#records = expected;
    this.#goodEnd = line.end;
    this.#lastTime = checked.time;
    return entries;
  }

  #header(line: RawLine): void {
    // The header is written to a temp file and synced before the rename, so it is never torn.
    if (!line.terminated) throw new FormatError(1, "the journal header has no newline");
    const text = decodeUtf8(line.bytes);
    if (text === null) throw new FormatError(1, "the journal header is not valid UTF-8");
    const { gen } = parseJournalHeader(text);
    if (gen !== this.#expectedGen) throw new FormatError(1, `the journal header names gen ${gen} but its file name says gen ${this.#expectedGen}`);
    this.#headerEnd = line.end;
    this.#goodEnd = line.end;
  }

  finish(): JournalScan {
    if (this.#headerEnd < 0) throw new FormatError(1, "the journal is empty (no header)");
    return {
      gen: this.#expectedGen,
      records: this.#records,
      goodEnd: this.#goodEnd,
      headerEnd: this.#headerEnd,
      torn: this.#bad === null ? null : { line: this.#bad.line, reason: this.#bad.reason },
      lastTime: this.#lastTime,
    };
  }
}
