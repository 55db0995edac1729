// The snapshot slot format (README, "On-disk layout and recovery"): v2–v4 header + entries + footer with a CRC, the seed's v1 (no footer), and the full read of v5 (sectioned-snapshot.ts), with their recovery rules.

import type { EntryRecord } from "../../types.ts";
import type { EmbedderIdentity, SnapshotSource } from "../backend.ts";
import { entryFromJson, entryJsonText } from "../record-codec.ts";
import { crc32Update } from "../crc32.ts";
import { FormatError } from "./format-error.ts";
import { decodeUtf8, encodeUtf8, type RawLine } from "../line-reader.ts";
import { countEntry, emptyCatalogUser } from "../user-catalog.ts";
import {
  SECTIONED_SNAPSHOT_VERSION,
  isBlocksLine,
  isSectioned,
  isSectionRecordLine,
  parseSectionRecord,
  parseTrailer,
  type SectionRecord,
} from "./sectioned-snapshot.ts";
import { SectionBlocks } from "./section-blocks.ts";

/**
 * The snapshot version this moomem writes: v6, per-user sections with an offset table
 * (sectioned-snapshot.ts), each section a block line (its vectors and text forms in binary,
 * section-blocks.ts) then its entry lines (those of entry format 4, vectors apart). v5 (the same without
 * block lines, vectors in the lines), v4 (one line per entry in seq order, the store's bookkeeping in
 * `lifecycle`), v3 (mostly-zero vectors by their non-zero components), v2 and the seed's v1 are still
 * read, and rewritten as v6 by the next compaction.
 */
export const SNAPSHOT_FORMAT_VERSION: number = SECTIONED_SNAPSHOT_VERSION;

/** The last version with one line per entry in seq order, which {@link encodeSnapshot} writes (tests make v4 stores with it). */
export const ENTRY_LINES_SNAPSHOT_VERSION = 4;

/** The seed's full-rewrite snapshot version, still read (v2 brought the footer, the count and the embedder in the header). */
export const SEED_SNAPSHOT_VERSION = 1;

/** What a snapshot's first line says. */
export interface SnapshotHeader {
  version: number;
  gen: number;
  /**
   * v2, v3: ms since epoch of the last write the snapshot contains (null when none);
   * v1: the seed's logical clock.
   */
  clock: number | null;
  /** Number of entry lines (v2 to v4; null for v1, which does not say, and v5, which says it in its trailer). */
  count: number | null;
  /** Embedding space of the vectors (v2, v3; null for v1). */
  embedder: EmbedderIdentity | null;
}

/** What goes into a header besides the version. */
export interface SnapshotMeta {
  gen: number;
  clock: number | null;
}

/** The header line (with newline). */
export function encodeSnapshotHeader(meta: SnapshotMeta, count: number, embedder: EmbedderIdentity): string {
  const clock = meta.clock === null ? null : Math.round(meta.clock);
  return `${JSON.stringify({ v: ENTRY_LINES_SNAPSHOT_VERSION, gen: meta.gen, clock, count, embedder: { id: embedder.id, dim: embedder.dim } })}\n`;
}

/** The footer line (with newline); `crc` covers every byte before it. */
export function encodeSnapshotFooter(count: number, crc: number): string {
  return `{"end":true,"count":${count},"crc":${crc}}\n`;
}

const FOOTER = /^\{"end":true,"count":(0|[1-9]\d{0,15}),"crc":(0|[1-9]\d{0,9})\}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Reads a snapshot header line (v1, v2 or v3); throws {@link FormatError} (line 1). */
export function parseSnapshotHeader(text: string): SnapshotHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormatError(1, "the snapshot header is not JSON");
  }
  if (!isObject(value)) throw new FormatError(1, "the snapshot header is not a JSON object");
  const version = value["v"];
  if (typeof version !== "number") throw new FormatError(1, "the snapshot header has no version");
  if (!Number.isInteger(version) || version < SEED_SNAPSHOT_VERSION || version > SNAPSHOT_FORMAT_VERSION) {
    throw new FormatError(1, `snapshot format version ${version} is not supported (this moomem reads versions 1 to ${SNAPSHOT_FORMAT_VERSION})`, "version");
  }
  const gen = value["gen"];
  if (!isCount(gen)) throw new FormatError(1, `the snapshot header has a bad gen (${String(gen)})`);
  const clock = value["clock"];
  if (version === SEED_SNAPSHOT_VERSION) {
    if (typeof clock !== "number" || !Number.isFinite(clock)) throw new FormatError(1, `the snapshot header has a bad clock (${String(clock)})`);
    return { version, gen, clock, count: null, embedder: null };
  }
  if (clock !== null && (typeof clock !== "number" || !Number.isFinite(clock)))
    throw new FormatError(1, `the snapshot header has a bad clock (${String(clock)})`);
  // v5 and v6 count their entries in the trailer (a compaction from the files does not know the count before it ends).
  const count = isSectioned(version) ? 0 : value["count"];
  if (!isCount(count)) throw new FormatError(1, `the snapshot header has a bad count (${String(count)})`);
  const embedder = value["embedder"];
  if (!isObject(embedder) || typeof embedder["id"] !== "string" || !isCount(embedder["dim"])) {
    throw new FormatError(1, "the snapshot header has a bad embedder identity");
  }
  return { version, gen, clock, count: isSectioned(version) ? null : count, embedder: { id: embedder["id"], dim: embedder["dim"] } };
}

/**
 * The lines of a v3 snapshot of `source`, as UTF-8 bytes, one chunk per line,
 * produced lazily (the whole snapshot is never one string). Throws a plain
 * Error when `source` breaks its promises (count, seq order): the caller must
 * then abandon the file it was writing.
 */
export function* encodeSnapshot(meta: SnapshotMeta, source: SnapshotSource): Generator<Uint8Array, void, undefined> {
  if (!isCount(source.count)) throw new Error(`snapshot count must be a non-negative integer, got ${String(source.count)}`);
  const header = encodeUtf8(encodeSnapshotHeader(meta, source.count, source.embedder));
  let crc = crc32Update(0, header);
  yield header;
  let count = 0;
  let lastSeq = -Infinity;
  for (const entry of source.entries) {
    if (!(entry.seq > lastSeq)) throw new Error(`snapshot entries must come in increasing seq order: seq ${entry.seq} came after ${lastSeq}`);
    lastSeq = entry.seq;
    count++;
    if (count > source.count) break;
    const line = encodeUtf8(`${entryJsonText(entry, true)}\n`);
    crc = crc32Update(crc, line);
    yield line;
  }
  if (count !== source.count) throw new Error(`the snapshot source promised ${source.count} entries but gave ${count > source.count ? "more" : count}`);
  yield encodeUtf8(encodeSnapshotFooter(count, crc));
}

/** What scanning a whole slot found. */
export interface SnapshotScan {
  header: SnapshotHeader;
  /** Entries read (v1: not counting a dropped half line). */
  entries: number;
  /** 1 when a v1 slot ended in a half-written line that was ignored, else 0. */
  truncated: number;
}

/**
 * Applies a slot's rules line by line.
 * - v2, v3: every line terminated; exactly `count` entries in increasing seq
 *   order, then the footer whose count and CRC match, then nothing. Anything
 *   else means the slot is not complete.
 * - v1 (seed): header, then entries; only the very last line may be bad (a
 *   half-written line, ignored and counted); a bad or empty line before the
 *   end is damage.
 *
 * With `decode: false` a v2 or v3 slot is only checked (CRC, counts), which is how
 * the slot with the larger gen is picked when `head` is unreadable.
 */
export class SnapshotScanner {
  readonly #decode: boolean;
  #header: SnapshotHeader | null = null;
  #crc = 0;
  #entries = 0;
  #lastSeq = -Infinity;
  #footerSeen = false;
  #pendingBad: { line: number; reason: string } | null = null;
  /** v5: the sections seen so far (when decoding), where the table starts, and the table's CRC (from the header). */
  readonly #v5 = {
    sections: [] as SectionRecord[],
    current: null as SectionRecord | null,
    seen: new Set<string>(),
    tableStart: null as number | null,
    tableCrc: 0,
    records: 0,
    /** v6: the block line of the section being read. */
    blocks: null as SectionBlocks | null,
  };

  constructor(options: { decode: boolean } = { decode: true }) {
    this.#decode = options.decode;
  }

  /** The header, once line 1 was accepted. */
  get header(): SnapshotHeader | null {
    return this.#header;
  }

  /** Returns the entry a line holds (null for header/footer or when not decoding); throws {@link FormatError}. */
  accept(line: RawLine): EntryRecord | null {
    if (this.#header === null) {
      if (!line.terminated) throw new FormatError(1, "the snapshot header has no newline (the slot was not completely written)");
      const text = decodeUtf8(line.bytes);
      if (text === null) throw new FormatError(1, "the snapshot header is not valid UTF-8");
      this.#header = parseSnapshotHeader(text);
      this.#crc = crc32Update(0, line.bytes);
      this.#crc = crc32Update(this.#crc, NEWLINE);
      this.#v5.tableCrc = this.#crc;
      return null;
    }
    if (isSectioned(this.#header.version)) return this.#acceptSectioned(line);
    return this.#header.version === SEED_SNAPSHOT_VERSION ? this.#acceptV1(line) : this.#acceptV2(line, this.#header.count ?? 0);
  }

  /**
   * v5 or v6 read whole (a read-only open, pickSlot, a v4-era full read): every line of every section,
   * the table, the trailer; the trailer's CRC covers every byte before it. Decoding, it also checks that
   * each user's lines are contiguous and in seq order, that a v6 section opens with its block line and
   * uses it up exactly (section-blocks.ts), and that the table says exactly what the sections hold.
   */
  #acceptSectioned(line: RawLine): EntryRecord | null {
    if (this.#footerSeen) throw new FormatError(line.number, "there is data after the trailer");
    if (!line.terminated) throw new FormatError(line.number, "no newline at the end (the slot was not completely written)");
    const v5 = this.#v5;
    const blocks = this.#header!.version === SECTIONED_SNAPSHOT_VERSION;
    const text = decodeUtf8(line.bytes) ?? "";
    if (v5.tableStart === null && blocks && isBlocksLine(text)) {
      this.#addCrc(line);
      if (!this.#decode) return null;
      this.#endSection(line.number);
      let parsed: SectionBlocks;
      try {
        parsed = new SectionBlocks(text);
      } catch (error) {
        throw new FormatError(line.number, error instanceof Error ? error.message : String(error));
      }
      if (v5.seen.has(parsed.userId)) throw new FormatError(line.number, `user ${parsed.userId}'s entries are not in one section`);
      v5.seen.add(parsed.userId);
      const section = this.#openSection(parsed.userId, line, true);
      section.length += line.end - line.start;
      section.crc = crc32Update(crc32Update(section.crc, line.bytes), NEWLINE);
      v5.blocks = parsed;
      return null;
    }
    if (v5.tableStart === null && !isSectionRecordLine(text) && parseTrailer(text) === null) {
      this.#addCrc(line);
      this.#entries++;
      if (!this.#decode) return null;
      const entry = this.#entry(line, false, v5.blocks ?? undefined);
      let section = v5.current;
      if (blocks) {
        if (section === null) throw new FormatError(line.number, "an entry line comes before any block line");
        if (section.userId !== entry.userId)
          throw new FormatError(line.number, `it holds an entry of user ${entry.userId} in user ${section.userId}'s section`);
        if (section.count > 0 && !(entry.seq > section.hi)) {
          throw new FormatError(line.number, `seq ${entry.seq} is not after seq ${section.hi} in user ${entry.userId}'s section`);
        }
        if (section.count === 0) section.lo = entry.seq;
      } else if (section === null || section.userId !== entry.userId) {
        if (v5.seen.has(entry.userId)) throw new FormatError(line.number, `user ${entry.userId}'s entries are not in one section`);
        v5.seen.add(entry.userId);
        section = this.#openSection(entry.userId, line, false);
        section.lo = entry.seq;
      } else if (!(entry.seq > section.hi)) {
        throw new FormatError(line.number, `seq ${entry.seq} is not after seq ${section.hi} in user ${entry.userId}'s section`);
      }
      section.seqs += section.count === 0 ? entry.seq.toString(36) : `.${(entry.seq - section.hi).toString(36)}`;
      section.hi = entry.seq;
      section.count++;
      section.length += line.end - line.start;
      section.crc = crc32Update(crc32Update(section.crc, line.bytes), NEWLINE);
      countEntry(section.summary, entry, 1);
      return entry;
    }
    if (v5.tableStart === null && this.#decode) this.#endSection(line.number);
    v5.tableStart ??= line.start;
    const trailer = parseTrailer(text);
    if (trailer === null) {
      if (!isSectionRecordLine(text)) throw new FormatError(line.number, "expected a table record or the trailer after the sections");
      const record = parseSectionRecord(text, `on line ${line.number}`, blocks);
      this.#addCrc(line);
      v5.tableCrc = crc32Update(crc32Update(v5.tableCrc, line.bytes), NEWLINE);
      const found = v5.sections[v5.records++];
      if (this.#decode && (found === undefined || !sameSection(found, record))) {
        throw new FormatError(line.number, `the table record for user ${record.userId} does not describe the section found there`);
      }
      return null;
    }
    if (trailer.version !== this.#header!.version)
      throw new FormatError(line.number, `the trailer ends a v${trailer.version} slot in a v${this.#header!.version} one`);
    if (trailer.count !== this.#entries || trailer.users !== v5.records) {
      throw new FormatError(
        line.number,
        `the trailer counts ${trailer.count} entries of ${trailer.users} users, but the slot holds ${this.#entries} of ${v5.records}`,
      );
    }
    if (this.#decode && v5.sections.length !== v5.records)
      throw new FormatError(line.number, `the table has ${v5.records} records for ${v5.sections.length} sections`);
    if (trailer.table !== v5.tableStart || trailer.tableBytes !== line.start - v5.tableStart) {
      throw new FormatError(line.number, "the trailer does not locate the table where it is");
    }
    if (trailer.tableCrc !== v5.tableCrc) throw new FormatError(line.number, `table CRC mismatch (trailer ${trailer.tableCrc}, computed ${v5.tableCrc})`);
    if (trailer.crc !== this.#crc) throw new FormatError(line.number, `CRC mismatch (trailer ${trailer.crc}, computed ${this.#crc})`);
    this.#footerSeen = true;
    return null;
  }

  #openSection(userId: string, line: RawLine, blocks: boolean): SectionRecord {
    const section: SectionRecord = {
      userId,
      offset: line.start,
      line: line.number,
      length: 0,
      count: 0,
      crc: 0,
      lo: -1,
      hi: -1,
      seqs: "",
      summary: emptyCatalogUser(userId),
      blocks,
    };
    this.#v5.sections.push(section);
    this.#v5.current = section;
    return section;
  }

  /** v6: the section being read ends (a block line or the table follows): its block must be used up, and it must hold entries. */
  #endSection(lineNumber: number): void {
    const v5 = this.#v5;
    const blocks = v5.blocks;
    if (blocks === null) return;
    v5.blocks = null;
    try {
      if (v5.current!.count !== blocks.count)
        throw new Error(`user ${blocks.userId}'s section holds ${v5.current!.count} entries, not the ${blocks.count} its block line counts`);
      blocks.finish();
    } catch (error) {
      throw new FormatError(lineNumber, error instanceof Error ? error.message : String(error));
    }
  }

  #addCrc(line: RawLine): void {
    this.#crc = crc32Update(this.#crc, line.bytes);
    this.#crc = crc32Update(this.#crc, NEWLINE);
  }

  #acceptV2(line: RawLine, count: number): EntryRecord | null {
    if (this.#footerSeen) throw new FormatError(line.number, "there is data after the footer");
    if (!line.terminated) throw new FormatError(line.number, "no newline at the end (the slot was not completely written)");
    if (this.#entries === count) {
      const text = decodeUtf8(line.bytes);
      const m = text === null ? null : FOOTER.exec(text);
      if (m === null) throw new FormatError(line.number, `expected the footer after ${count} entries`);
      if (Number(m[1]) !== count) throw new FormatError(line.number, `the footer counts ${m[1]} entries but the header says ${count}`);
      if (Number(m[2]) !== this.#crc) throw new FormatError(line.number, `CRC mismatch (footer ${m[2]}, computed ${this.#crc})`);
      this.#footerSeen = true;
      return null;
    }
    this.#crc = crc32Update(this.#crc, line.bytes);
    this.#crc = crc32Update(this.#crc, NEWLINE);
    this.#entries++;
    if (!this.#decode) return null;
    return this.#entry(line);
  }

  #acceptV1(line: RawLine): EntryRecord | null {
    if (this.#pendingBad !== null) {
      throw new FormatError(this.#pendingBad.line, `${this.#pendingBad.reason}, and it is not the last line`);
    }
    if (line.bytes.length === 0) {
      this.#pendingBad = { line: line.number, reason: "empty line" };
      return null;
    }
    try {
      const entry = this.#entry(line);
      return entry;
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      // A seed snapshot has no footer: only the very last line may be a half-written one.
      this.#pendingBad = { line: line.number, reason: error.message };
      return null;
    }
  }

  #entry(line: RawLine, seqOrder = true, blocks?: SectionBlocks): EntryRecord {
    const text = decodeUtf8(line.bytes);
    if (text === null) throw new FormatError(line.number, "not valid UTF-8");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new FormatError(line.number, "not JSON");
    }
    let entry: EntryRecord;
    try {
      entry = entryFromJson(value, blocks);
      blocks?.take(entry);
    } catch (error) {
      throw new FormatError(line.number, error instanceof Error ? error.message : String(error));
    }
    if (!seqOrder) return entry;
    if (!(entry.seq > this.#lastSeq)) throw new FormatError(line.number, `seq ${entry.seq} is not after seq ${this.#lastSeq}`);
    this.#lastSeq = entry.seq;
    if (this.#header?.version === SEED_SNAPSHOT_VERSION) this.#entries++;
    return entry;
  }

  finish(): SnapshotScan {
    const header = this.#header;
    if (header === null) throw new FormatError(1, "the slot is empty (no header)");
    if (header.version === SEED_SNAPSHOT_VERSION) {
      return { header, entries: this.#entries, truncated: this.#pendingBad === null ? 0 : 1 };
    }
    if (!this.#footerSeen) {
      if (isSectioned(header.version)) throw new FormatError(0, "the trailer is missing (the slot was not completely written)");
      throw new FormatError(header.count === null ? 1 : this.#entries + 2, "the footer is missing (the slot was not completely written)");
    }
    return { header, entries: this.#entries, truncated: 0 };
  }
}

const NEWLINE = new Uint8Array([10]);

function sameSection(a: SectionRecord, b: SectionRecord): boolean {
  const s = a.summary;
  const t = b.summary;
  return (
    a.userId === b.userId &&
    a.offset === b.offset &&
    a.length === b.length &&
    a.count === b.count &&
    a.crc === b.crc &&
    a.lo === b.lo &&
    a.hi === b.hi &&
    a.seqs === b.seqs &&
    s.active === t.active &&
    s.superseded === t.superseded &&
    s.deleted === t.deleted &&
    s.unstructured === t.unstructured &&
    s.lastWriteAt === t.lastWriteAt &&
    s.maxSeq === t.maxSeq
  );
}
