// Snapshot formats v5 and v6 (README, "On-disk layout and recovery"; docs/decisions.md, "Snapshot v5", "Snapshot v6"): one section per user,
// an offset table, a trailer locating it; v6 opens each section with a block line holding its vectors and text forms (section-blocks.ts).

import type { EntryRecord } from "../../types.ts";
import type { CatalogUser, EmbedderIdentity } from "../backend.ts";
import { entryFromJson, entryJsonText } from "../record-codec.ts";
import { crc32Combine, crc32Update } from "../crc32.ts";
import { countEntry, emptyCatalogUser } from "../user-catalog.ts";
import { decodeUtf8, encodeUtf8 } from "../line-reader.ts";
import { readRange, type FileSystem } from "./file-system.ts";
import { FormatError } from "./format-error.ts";
import { BLOCKS_PREFIX, SectionBlocks, encodeBlocksLine } from "./section-blocks.ts";

/** The snapshot version this moomem writes: per-user sections, each opened by a block line, and an offset table. */
export const SECTIONED_SNAPSHOT_VERSION = 6;

/** The first version with per-user sections and an offset table (entry lines only), still read. */
export const SECTIONED_V5 = 5;

/** Whether a slot of this version has sections and a table (v5, v6). */
export function isSectioned(version: number | null): version is 5 | 6 {
  return version === SECTIONED_V5 || version === SECTIONED_SNAPSHOT_VERSION;
}

/** One record of the offset table: where a user's section is, what it holds, and its CRC. */
export interface SectionRecord {
  userId: string;
  /** Byte offset of the section's first line, and the section's length in bytes (every line with its newline). */
  offset: number;
  length: number;
  /** Entry lines in the section (the user's entries, in seq order). */
  count: number;
  /** CRC-32 of the section's bytes. */
  crc: number;
  /** Line number of the section's first line in the file (not stored: the counts of the sections before it say it). */
  line: number;
  /** Smallest and largest seq in the section. */
  lo: number;
  hi: number;
  /**
   * Every seq of the section, as base-36 gaps joined by "." (the first seq, then each one minus the one
   * before): about 4 bytes per entry, decoded only at open and only for a user whose range holds a
   * journal seq ({@link seqsOf}); emptied once the open checked the journal.
   */
  seqs: string;
  /** The user's counts by status, latest updated_at and max seq (user-catalog.ts), as the section holds them. */
  summary: CatalogUser;
  /** v6: the section's first line is its block line (section-blocks.ts); not stored (the header's version says it). */
  blocks: boolean;
}

/** What the open of a v5 slot reads: the header, the table, and where it all is. */
export interface SectionTable {
  version: 5 | 6;
  gen: number;
  clock: number | null;
  embedder: EmbedderIdentity;
  /** Sum of the sections' entry counts. */
  count: number;
  /** One record per user, in file order. */
  sections: SectionRecord[];
  /** Bytes of the header line (with its newline): the first section starts there. */
  headerBytes: number;
}

/** What goes into a header besides the version. */
export interface SectionedMeta {
  gen: number;
  clock: number | null;
}

const SECTION_PREFIX = '{"section":';
const SEQ_GAPS = /^[0-9a-z]{1,11}(\.[0-9a-z]{1,11})*$/;
const TRAILER =
  /^\{"end":(5|6),"count":(0|[1-9]\d{0,15}),"users":(0|[1-9]\d{0,15}),"table":(0|[1-9]\d{0,15}),"tableBytes":(0|[1-9]\d{0,15}),"tableCrc":(0|[1-9]\d{0,9}),"crc":(0|[1-9]\d{0,9})\}$/;
/** Longest trailer line (six numbers at their longest), newline included. */
const MAX_TRAILER_BYTES = 200;
const NEWLINE = 10;

/** The header line (with newline) of a v6 slot, or of a v5 one (tests make v5 stores with it). */
export function encodeSectionedHeader(meta: SectionedMeta, embedder: EmbedderIdentity, version: 5 | 6 = SECTIONED_SNAPSHOT_VERSION): string {
  const clock = meta.clock === null ? null : Math.round(meta.clock);
  return `${JSON.stringify({ v: version, gen: meta.gen, clock, embedder: { id: embedder.id, dim: embedder.dim } })}\n`;
}

/** A table line (with newline). */
export function encodeSectionRecord(r: SectionRecord): string {
  const s = r.summary;
  return `${JSON.stringify({
    section: r.userId,
    at: r.offset,
    bytes: r.length,
    n: r.count,
    crc: r.crc,
    lo: r.lo,
    hi: r.hi,
    seqs: r.seqs,
    active: s.active,
    superseded: s.superseded,
    deleted: s.deleted,
    unstructured: s.unstructured,
    w: s.lastWriteAt,
    m: s.maxSeq,
  })}\n`;
}

function trailerText(version: 5 | 6, count: number, users: number, table: number, tableBytes: number, tableCrc: number, crc: number): string {
  return `{"end":${version},"count":${count},"users":${users},"table":${table},"tableBytes":${tableBytes},"tableCrc":${tableCrc},"crc":${crc}}\n`;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The bytes of a v6 snapshot (`options.version` 5: a v5 one), lazily, a line at a time: `users` gives each user's entries (in
 * increasing seq order, every one that user's), each user once. `onTable` gets the table once every
 * section is written (the new snapshot's index). Throws a plain Error when `users` breaks those
 * promises (or gives `count` entries when one is promised): the caller abandons the file it was writing.
 */
export async function* encodeSectionedSnapshot(
  meta: SectionedMeta,
  embedder: EmbedderIdentity,
  users: Iterable<readonly [string, readonly EntryRecord[]]> | AsyncIterable<readonly [string, readonly EntryRecord[]]>,
  options: { count?: number; onTable?: (table: SectionTable) => void; version?: 5 | 6 } = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const version = options.version ?? SECTIONED_SNAPSHOT_VERSION;
  const blocks = version === SECTIONED_SNAPSHOT_VERSION;
  const header = encodeUtf8(encodeSectionedHeader(meta, embedder, version));
  let crc = crc32Update(0, header);
  let tableCrc = crc;
  let position = header.length;
  yield header;
  const sections: SectionRecord[] = [];
  const seen = new Set<string>();
  let count = 0;
  for await (const [userId, entries] of users) {
    if (seen.has(userId)) throw new Error(`the snapshot source gave user ${userId} twice`);
    seen.add(userId);
    if (entries.length === 0) continue;
    const summary = emptyCatalogUser(userId);
    let sectionCrc = 0;
    const offset = position;
    let lastSeq = -Infinity;
    const gaps: string[] = [];
    if (blocks) {
      for (const entry of entries)
        if (entry.userId !== userId) throw new Error(`the snapshot source gave entry ${entry.id} of user ${entry.userId} among user ${userId}'s`);
      const line = encodeUtf8(encodeBlocksLine(userId, entries));
      sectionCrc = crc32Update(sectionCrc, line);
      crc = crc32Update(crc, line);
      position += line.length;
      yield line;
    }
    for (const entry of entries) {
      if (entry.userId !== userId) throw new Error(`the snapshot source gave entry ${entry.id} of user ${entry.userId} among user ${userId}'s`);
      if (!(entry.seq > lastSeq)) throw new Error(`snapshot entries must come in increasing seq order: seq ${entry.seq} came after ${lastSeq}`);
      gaps.push((gaps.length === 0 ? entry.seq : entry.seq - lastSeq).toString(36));
      lastSeq = entry.seq;
      const line = encodeUtf8(`${entryJsonText(entry, true, false, blocks)}\n`);
      sectionCrc = crc32Update(sectionCrc, line);
      crc = crc32Update(crc, line);
      position += line.length;
      countEntry(summary, entry, 1);
      yield line;
    }
    count += entries.length;
    sections.push({
      userId,
      offset,
      length: position - offset,
      count: entries.length,
      crc: sectionCrc,
      line: 2 + count - entries.length + (blocks ? sections.length : 0),
      lo: entries[0]!.seq,
      hi: lastSeq,
      seqs: gaps.join("."),
      summary,
      blocks,
    });
  }
  if (options.count !== undefined && options.count !== count) {
    throw new Error(`the snapshot source promised ${options.count} entries but gave ${count > options.count ? "more" : count}`);
  }
  const table = position;
  for (const section of sections) {
    const line = encodeUtf8(encodeSectionRecord(section));
    crc = crc32Update(crc, line);
    tableCrc = crc32Update(tableCrc, line);
    position += line.length;
    yield line;
  }
  yield encodeUtf8(trailerText(version, count, sections.length, table, position - table, tableCrc, crc));
  options.onTable?.({
    version,
    gen: meta.gen,
    clock: meta.clock === null ? null : Math.round(meta.clock),
    embedder,
    count,
    sections,
    headerBytes: header.length,
  });
}

/** Reads a table line of a v5 (`blocks` false) or v6 slot; throws {@link FormatError} (`line` 0: byte offsets are given in the message). */
export function parseSectionRecord(text: string, where: string, blocks: boolean): SectionRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormatError(0, `the table record ${where} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FormatError(0, `the table record ${where} is not a JSON object`);
  const o = value as Record<string, unknown>;
  const userId = o["section"];
  if (typeof userId !== "string" || userId.length === 0) throw new FormatError(0, `the table record ${where} names no user`);
  const fields = ["at", "bytes", "n", "crc", "lo", "hi", "active", "superseded", "deleted", "unstructured", "w", "m"] as const;
  for (const f of fields) if (!isCount(o[f])) throw new FormatError(0, `the table record ${where} (user ${userId}) has a bad ${f} (${String(o[f])})`);
  const n = (f: (typeof fields)[number]): number => o[f] as number;
  const summary: CatalogUser = {
    userId,
    total: n("n"),
    active: n("active"),
    superseded: n("superseded"),
    deleted: n("deleted"),
    unstructured: n("unstructured"),
    lastWriteAt: n("w"),
    maxSeq: n("m"),
  };
  if (summary.active + summary.superseded + summary.deleted + summary.unstructured !== summary.total || summary.total === 0) {
    throw new FormatError(0, `the table record ${where} (user ${userId}) counts ${summary.total} entries but its statuses do not add up to that`);
  }
  const seqs = o["seqs"];
  if (typeof seqs !== "string" || !SEQ_GAPS.test(seqs)) throw new FormatError(0, `the table record ${where} (user ${userId}) has a bad seqs list`);
  if (n("lo") > n("hi") || n("hi") > summary.maxSeq || n("crc") > 0xffffffff) {
    throw new FormatError(0, `the table record ${where} (user ${userId}) has inconsistent seqs or CRC`);
  }
  return { userId, offset: n("at"), length: n("bytes"), count: summary.total, crc: n("crc"), line: 0, lo: n("lo"), hi: n("hi"), seqs, summary, blocks };
}

function parseHeader(bytes: Uint8Array): { version: 5 | 6; gen: number; clock: number | null; embedder: EmbedderIdentity } {
  const text = decodeUtf8(bytes);
  let value: unknown;
  try {
    value = text === null ? null : JSON.parse(text);
  } catch {
    value = null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FormatError(1, "the snapshot header is not a JSON object");
  const o = value as Record<string, unknown>;
  const { gen, clock, embedder } = o;
  const version = o["v"];
  if (!isSectioned(version as number)) throw new FormatError(1, "the snapshot header is not a v5 or v6 header");
  if (!isCount(gen)) throw new FormatError(1, `the snapshot header has a bad gen (${String(gen)})`);
  if (clock !== null && (typeof clock !== "number" || !Number.isFinite(clock)))
    throw new FormatError(1, `the snapshot header has a bad clock (${String(clock)})`);
  if (typeof embedder !== "object" || embedder === null) throw new FormatError(1, "the snapshot header has a bad embedder identity");
  const e = embedder as Record<string, unknown>;
  if (typeof e["id"] !== "string" || !isCount(e["dim"])) throw new FormatError(1, "the snapshot header has a bad embedder identity");
  return { version: version as 5 | 6, gen, clock, embedder: { id: e["id"], dim: e["dim"] } };
}

/** Bytes `start..start+length` of a file in one read where the seam can (`readRanges`), else through `readChunks`. */
async function readExact(fs: FileSystem, path: string, start: number, length: number): Promise<Uint8Array> {
  if (typeof fs.readRanges === "function") return (await fs.readRanges(path, [{ start, length }]))[0]!;
  return readRange(fs, path, start, length);
}

/** The version a slot's first line names (null when it names none), reading only that line (one small read when the header fits in 4 KiB). */
export async function slotVersion(fs: FileSystem, path: string): Promise<{ version: number | null; header: Uint8Array | null }> {
  const first = await readExact(fs, path, 0, 4096);
  const end = first.indexOf(NEWLINE);
  if (end >= 0) return headerVersion(first.slice(0, end));
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of fs.readChunks(path)) {
    const nl = chunk.indexOf(NEWLINE);
    if (nl >= 0) {
      chunks.push(chunk.subarray(0, nl));
      length += nl;
      const header = new Uint8Array(length);
      let at = 0;
      for (const c of chunks) {
        header.set(c, at);
        at += c.length;
      }
      return headerVersion(header);
    }
    chunks.push(chunk);
    length += chunk.length;
    if (length > 1 << 20) break;
  }
  return { version: null, header: null };
}

function headerVersion(header: Uint8Array): { version: number | null; header: Uint8Array } {
  const m = /^\{"v":(\d{1,3}),/.exec(decodeUtf8(header.subarray(0, 12)) ?? "");
  return { version: m === null ? null : Number(m[1]), header };
}

/**
 * Reads what the open of a v5 slot needs: the header (given, without its newline), the trailer, and
 * the table, checked (the table's CRC, which covers the header too; sections contiguous from the header
 * to the table; counts adding up). Sections are not read: each is checked when it is (see
 * {@link readSection}). Throws {@link FormatError}.
 */
export async function readSectionTable(fs: FileSystem, path: string, header: Uint8Array): Promise<SectionTable> {
  const meta = parseHeader(header);
  const headerBytes = header.length + 1;
  const size = (await fs.size(path)) ?? 0;
  const tailLength = Math.min(size - headerBytes, MAX_TRAILER_BYTES);
  if (tailLength < 2) throw new FormatError(0, "the trailer is missing (the slot was not completely written)");
  const tail = await readExact(fs, path, size - tailLength, tailLength);
  if (tail.length !== tailLength || tail[tail.length - 1] !== NEWLINE) throw new FormatError(0, "the trailer is missing (the slot was not completely written)");
  const lineStart = tail.lastIndexOf(NEWLINE, tail.length - 2) + 1;
  if (lineStart === 0 && tailLength === MAX_TRAILER_BYTES) throw new FormatError(0, "the last line is not a trailer (the slot was not completely written)");
  const m = TRAILER.exec(decodeUtf8(tail.subarray(lineStart, tail.length - 1)) ?? "");
  if (m === null) throw new FormatError(0, "the last line is not a trailer (the slot was not completely written, or it was damaged)");
  const [end, count, users, table, tableBytes, tableCrc, fileCrc] = m.slice(1, 8).map(Number) as [number, number, number, number, number, number, number];
  if (end !== meta.version) throw new FormatError(0, `the trailer ends a v${end} slot but the header says v${meta.version}`);
  const trailerStart = size - tailLength + lineStart;
  if (table < headerBytes || table + tableBytes !== trailerStart) {
    throw new FormatError(0, `the trailer puts the table at bytes ${table}..${table + tableBytes}, which is not between the header and the trailer`);
  }
  const tableData = await readExact(fs, path, table, tableBytes);
  if (tableData.length !== tableBytes) throw new FormatError(0, "the file ends inside the table");
  let crc = crc32Update(0, header);
  crc = crc32Update(crc, new Uint8Array([NEWLINE]));
  crc = crc32Update(crc, tableData);
  if (crc !== tableCrc)
    throw new FormatError(0, `the table's CRC does not match (trailer ${tableCrc}, computed ${crc}): the table, the header or the trailer is damaged`);
  const sections: SectionRecord[] = [];
  const seen = new Set<string>();
  let expected = headerBytes;
  let total = 0;
  let from = 0;
  while (from < tableData.length) {
    const nl = tableData.indexOf(NEWLINE, from);
    if (nl < 0) throw new FormatError(0, "the table's last record has no newline");
    const where = `at byte ${table + from}`;
    const record = parseSectionRecord(decodeUtf8(tableData.subarray(from, nl)) ?? "", where, meta.version === SECTIONED_SNAPSHOT_VERSION);
    if (seen.has(record.userId)) throw new FormatError(0, `the table names user ${record.userId} twice`);
    seen.add(record.userId);
    if (record.offset !== expected || record.length < record.count * 2 + (record.blocks ? 2 : 0)) {
      throw new FormatError(
        0,
        `the table record ${where} puts user ${record.userId}'s section at byte ${record.offset} (${record.length} bytes), not right after the previous one`,
      );
    }
    expected = record.offset + record.length;
    record.line = 2 + total + (record.blocks ? sections.length : 0);
    total += record.count;
    sections.push(record);
    from = nl + 1;
  }
  if (expected !== table) throw new FormatError(0, `the sections end at byte ${expected} but the table starts at byte ${table}`);
  if (sections.length !== users || total !== count) {
    throw new FormatError(0, `the trailer counts ${count} entries of ${users} users but the table holds ${total} of ${sections.length}`);
  }
  // The whole file's CRC (the trailer's last number), from its parts' CRCs without reading the sections: a damaged
  // trailer is found at this open, as a full read finds it (snapshot-format.ts), not only at the next full read.
  let whole = crc32Update(0, header);
  whole = crc32Update(whole, new Uint8Array([NEWLINE]));
  for (const section of sections) whole = crc32Combine(whole, section.crc, section.length);
  whole = crc32Combine(whole, crc32Update(0, tableData), tableBytes);
  if (whole !== fileCrc) {
    throw new FormatError(0, `the file's CRC does not match (trailer ${fileCrc}, computed from its parts ${whole}): the trailer or the table is damaged`);
  }
  return { ...meta, count, sections, headerBytes };
}

/**
 * A user's section, read in one read and checked: its CRC, its line count, every line an entry of that
 * user in increasing seq order from `lo` to `hi`. Throws {@link FormatError} (byte offsets in the message).
 */
export async function readSection(fs: FileSystem, path: string, record: SectionRecord): Promise<EntryRecord[]> {
  const bytes = await readExact(fs, path, record.offset, record.length);
  return decodeSection(bytes, record);
}

/** {@link readSection} for bytes already read. */
export function decodeSection(bytes: Uint8Array, record: SectionRecord): EntryRecord[] {
  const who = `user ${record.userId}'s section (lines ${record.line}..${record.line + record.count - (record.blocks ? 0 : 1)}, bytes ${record.offset}..${record.offset + record.length})`;
  if (bytes.length !== record.length) throw new FormatError(record.line, `the file ends inside ${who}`);
  const entries: EntryRecord[] = [];
  let from = 0;
  let lastSeq = -Infinity;
  let blocks: SectionBlocks | null = null;
  const first = record.blocks ? 1 : 0;
  if (record.blocks) {
    // Read from its bytes: most of it is base64, which is decoded from there without a string of it (section-blocks.ts).
    const nl = bytes.indexOf(NEWLINE);
    if (nl < 0) throw new FormatError(record.line + first, `${who} ends without a newline`);
    try {
      blocks = new SectionBlocks(bytes.subarray(0, nl), record.userId, record.count);
    } catch (error) {
      throw new FormatError(record.line, `${error instanceof Error ? error.message : String(error)} (in ${who})`);
    }
    from = nl + 1;
  }
  const body = bytes.subarray(from);
  from = 0;
  // One UTF-8 decode for the entry lines (3x faster than one per line); per line only to say which line is not UTF-8.
  const whole = body[body.length - 1] === NEWLINE ? decodeUtf8(body) : null;
  const end = whole === null ? body.length : whole.length;
  while (from < end) {
    const nl = whole === null ? body.indexOf(NEWLINE, from) : whole.indexOf("\n", from);
    const line = record.line + first + entries.length;
    if (nl < 0) throw new FormatError(line, `${who} ends without a newline`);
    const text = whole === null ? decodeUtf8(body.subarray(from, nl)) : whole.slice(from, nl);
    let entry: EntryRecord;
    try {
      if (text === null) throw new Error("not valid UTF-8");
      entry = entryFromJson(JSON.parse(text), blocks ?? undefined);
      blocks?.take(entry);
    } catch (error) {
      throw new FormatError(line, `${error instanceof Error ? error.message : String(error)} (in ${who})`);
    }
    if (entry.userId !== record.userId) {
      throw new FormatError(line, `it holds an entry of user ${entry.userId}: not the entry the index says (user ${record.userId}) in ${who}`);
    }
    if (!(entry.seq > lastSeq)) throw new FormatError(line, `seq ${entry.seq} is not after seq ${lastSeq} in ${who}`);
    lastSeq = entry.seq;
    entries.push(entry);
    from = nl + 1;
  }
  if (record.blocks) {
    try {
      if (blocks === null) throw new Error("the section has no block line");
      blocks.finish();
    } catch (error) {
      throw new FormatError(record.line, `${error instanceof Error ? error.message : String(error)} (in ${who})`);
    }
  }
  if (entries.length !== record.count || entries[0]?.seq !== record.lo || lastSeq !== record.hi) {
    throw new FormatError(
      record.line,
      `${who} holds ${entries.length} entries (seqs ${entries[0]?.seq}..${lastSeq}), not the ${record.count} (seqs ${record.lo}..${record.hi}) the table says`,
    );
  }
  // Checked last (nothing is returned before): a line that reads but names another user is reported as that, more useful than a CRC.
  const crc = crc32Update(0, bytes);
  if (crc !== record.crc) throw new FormatError(record.line, `${who} does not match its CRC (table ${record.crc}, computed ${crc})`);
  return entries;
}

/**
 * The seqs a table record lists, checked against its count and range; throws {@link FormatError} (the
 * table's CRC makes a mismatch damage that the CRC could not see: a record written wrong).
 */
export function seqsOf(record: SectionRecord): number[] {
  const out: number[] = [];
  let seq = 0;
  for (const gap of record.seqs.split(".")) {
    const step = parseInt(gap, 36);
    if (!(step > 0) && out.length > 0) break;
    seq += step;
    out.push(seq);
  }
  if (out.length !== record.count || out[0] !== record.lo || seq !== record.hi) {
    throw new FormatError(
      0,
      `the table record of user ${record.userId} lists ${out.length} seqs (${out[0]}..${seq}), not the ${record.count} (${record.lo}..${record.hi}) it counts`,
    );
  }
  return out;
}

/** Whether a snapshot line is a v6 section's block line (its first). */
export function isBlocksLine(text: string): boolean {
  return text.startsWith(BLOCKS_PREFIX);
}

/** Whether a snapshot line is a table record (in a full read, every line after the sections). */
export function isSectionRecordLine(text: string): boolean {
  return text.startsWith(SECTION_PREFIX);
}

/** The trailer's numbers, or null when `text` is not a trailer. */
export function parseTrailer(
  text: string,
): { version: number; count: number; users: number; table: number; tableBytes: number; tableCrc: number; crc: number } | null {
  const m = TRAILER.exec(text);
  if (m === null) return null;
  const [version, count, users, table, tableBytes, tableCrc, crc] = m.slice(1, 8).map(Number) as [number, number, number, number, number, number, number];
  return { version, count, users, table, tableBytes, tableCrc, crc };
}
