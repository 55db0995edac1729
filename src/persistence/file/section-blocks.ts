// Snapshot format 6's block line (docs/decisions.md, "Snapshot v6"): a section's vectors and text forms in binary, so a user loads by reading.

import type { EntryRecord, EntryStatus } from "../../types.ts";
import { normalizeForDedupOnce, tokenizeOnce } from "../../text/tokenizer.ts";
import { base64BytesToBytes, base64ToBytes, bytesToBase64, zeroVector } from "../base64.ts";
import { decodeUtf8 } from "../line-reader.ts";
import type { VectorSource } from "../record-codec.ts";
import { blockHome, type BlockVectors, type ScoreOffer, type SparsePairSink } from "../homed-record.ts";
import { storedSelfDot, unitAsStored } from "../../embedding/vector-math.ts";
import { attachTextForms, textFormsId, textFormsOf, type TextForms, type TextFormsSlot } from "../text-forms.ts";

/** How a block line starts (an entry line starts with `{"id":`). */
export const BLOCKS_PREFIX = '{"blocks":';

/** Statuses whose entries the indexes hold (state/entry-state.ts `isLive`): only these carry text forms. */
function isLive(status: EntryStatus): boolean {
  return status === "active" || status === "unstructured";
}

/**
 * Whether an entry's forms are stored: only for ASCII text, whose tokens and dedup form are computed by
 * moomem's own code alone. Any other text goes through `Intl.Segmenter` and Unicode tables (NFKC, case),
 * which differ between runtimes and their ICU versions: a store written on one runtime and read on
 * another must index such a text as the reader's own tokenizer does (its queries are tokenized by it),
 * so it is tokenized again at load. Its dedup slot is then 1.
 */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A growing byte buffer with LEB128 varints. */
class ByteSink {
  bytes = new Uint8Array(1024);
  length = 0;

  #room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(this.length + n, 2 * this.bytes.length));
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  varint(value: number): void {
    this.#room(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }
}

/** True for every float32 but +0 (so -0 survives the sparse form, as in base64.ts). */
function isSet(x: number): boolean {
  return x !== 0 || 1 / x < 0;
}

/**
 * The block line (with its newline) of one user's section: written first in the section, before the
 * entry lines (written with `apart`: their vectors are here). `bin` is base64 of, little-endian: every
 * vector's stored components (float32), then the indices of the sparse ones (uint8 when no sparse vector
 * has more than 256 components, as a hashing embedder's; else uint16: `indexBytes`), then per entry in
 * order a varint count of its vector's stored components (when it has a vector; its dimension for a
 * dense one) and, for a live entry, a varint count of its distinct tokens followed by (term id, tf)
 * varint pairs. `terms` lists the section's tokens; `dedup` holds per entry its dedup form (0: the
 * content in lower case; 1: not stored, the text is not ASCII (see isAscii); null: not live). `forms` names the tokenizer that made them ({@link textFormsId}).
 */
export function encodeBlocksLine(userId: string, entries: readonly EntryRecord[]): string {
  let values = new Float32Array(1024);
  let valueCount = 0;
  let indices = new Uint16Array(1024);
  let indexCount = 0;
  const varints = new ByteSink();
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  const dedup: (string | 0 | 1 | null)[] = [];
  let pairs = 0;
  let narrow = true;
  const idOf = (term: string): number => {
    let id = termIds.get(term);
    if (id === undefined) {
      id = terms.length;
      terms.push(term);
      termIds.set(term, id);
    }
    return id;
  };
  for (const entry of entries) {
    const vector = entry.embedding;
    if (vector !== null) {
      const dim = vector.length;
      let set = 0;
      for (let i = 0; i < dim; i++) if (isSet(vector[i]!)) set++;
      const sparse = dim <= 65_536 && 6 * set < 4 * dim;
      const stored = sparse ? set : dim;
      varints.varint(stored);
      if (valueCount + stored > values.length) values = grown(values, valueCount + stored);
      if (sparse) {
        if (indexCount + stored > indices.length) indices = grown(indices, indexCount + stored);
        if (dim > 256) narrow = false;
        for (let i = 0; i < dim; i++) {
          if (!isSet(vector[i]!)) continue;
          values[valueCount++] = vector[i]!;
          indices[indexCount++] = i;
        }
      } else {
        values.set(vector, valueCount);
        valueCount += dim;
      }
    }
    if (!isLive(entry.status)) {
      dedup.push(null);
      continue;
    }
    if (!isAscii(entry.content)) {
      // Not stored: see isAscii.
      varints.varint(0);
      dedup.push(1);
      continue;
    }
    const known = textFormsOf(entry);
    let form: string;
    if (known !== undefined) {
      varints.varint(known.end - known.start);
      for (let i = known.start; i < known.end; i++) {
        varints.varint(idOf(known.terms[known.ids[i]!]!));
        varints.varint(known.tfs[i]!);
      }
      pairs += known.end - known.start;
      form = known.dedup;
    } else {
      const counts = new Map<string, number>();
      for (const token of tokenizeOnce(entry.content)) counts.set(token, (counts.get(token) ?? 0) + 1);
      varints.varint(counts.size);
      for (const [term, tf] of counts) {
        varints.varint(idOf(term));
        varints.varint(tf);
      }
      pairs += counts.size;
      form = normalizeForDedupOnce(entry.content);
    }
    dedup.push(form === entry.content.toLowerCase() ? 0 : form);
  }
  const indexBytes = narrow ? 1 : 2;
  const bin = new Uint8Array(4 * valueCount + indexBytes * indexCount + varints.length);
  const view = new DataView(bin.buffer);
  for (let i = 0; i < valueCount; i++) view.setFloat32(4 * i, values[i]!, true);
  if (narrow) for (let i = 0, at = 4 * valueCount; i < indexCount; i++, at++) bin[at] = indices[i]!;
  else for (let i = 0, at = 4 * valueCount; i < indexCount; i++, at += 2) view.setUint16(at, indices[i]!, true);
  bin.set(varints.bytes.subarray(0, varints.length), 4 * valueCount + indexBytes * indexCount);
  return (
    `${BLOCKS_PREFIX}${JSON.stringify(userId)},"n":${entries.length},"forms":${JSON.stringify(textFormsId())},"values":${valueCount},"indices":${indexCount},"indexBytes":${indexBytes},` +
    `"pairs":${pairs},"terms":${JSON.stringify(terms)},"dedup":${JSON.stringify(dedup)},"bin":"${bytesToBase64(bin)}"}\n`
  );
}

function grown<T extends Float32Array | Uint16Array>(array: T, least: number): T {
  const next = new (array.constructor as new (n: number) => T)(Math.max(least, 2 * array.length));
  next.set(array);
  return next;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A block line's JSON value, and its `bin` when it was decoded already (null: the value's own `bin` is to be decoded). */
interface ReadLine {
  value: unknown;
  bin: Uint8Array | null;
}

const NOT_A_BLOCK_LINE = "the section does not start with its block line";

function parseLine(text: string): ReadLine {
  try {
    return { value: JSON.parse(text), bin: null };
  } catch {
    throw new Error("the block line is not JSON");
  }
}

const asciiBytes = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
const PREFIX_BYTES = asciiBytes(BLOCKS_PREFIX);
/** How `bin` starts in a line {@link encodeBlocksLine} writes: last, after a comma, its value base64 with no escapes. */
const BIN_KEY = asciiBytes(',"bin":"');
const QUOTE = 0x22;
const CLOSE = 0x7d;

/** A block line from its bytes (without the newline): by {@link splitLine} when it can, else as its text. */
function readLine(line: Uint8Array): ReadLine {
  for (let i = 0; i < PREFIX_BYTES.length; i++) if (line[i] !== PREFIX_BYTES[i]) throw new Error(NOT_A_BLOCK_LINE);
  const split = splitLine(line);
  if (split !== null) return split;
  const text = decodeUtf8(line);
  if (text === null) throw new Error(NOT_A_BLOCK_LINE);
  return parseLine(text);
}

/**
 * A block line read without a string of its `bin` (most of the line): when the line is `head` then
 * `,"bin":"B"}` with `B` plain base64 (no escape, no quote) and `head` + `}` parses as JSON, the
 * line's value is that of `head` + `}` with `bin` set to `B` (the last duplicate wins, as JSON.parse
 * has it), and `B` is decoded from the bytes. Null for any other line, which {@link readLine} then
 * parses whole: it answers as before, errors included.
 */
function splitLine(line: Uint8Array): ReadLine | null {
  const end = line.length;
  if (end < 2 || line[end - 2] !== QUOTE || line[end - 1] !== CLOSE) return null;
  const at = indexOfBinKey(line);
  const binStart = at + BIN_KEY.length;
  if (at < 0 || binStart > end - 2) return null;
  const bin = base64BytesToBytes(line, binStart, end - 2);
  if (bin === null) return null;
  const head = decodeUtf8(line.subarray(0, at));
  if (head === null) return null;
  try {
    return { value: JSON.parse(`${head}}`), bin };
  } catch {
    return null;
  }
}

/** Where {@link BIN_KEY} first occurs in `line`, or -1 (a JSON string holds a quote escaped: only a key can look like it). */
function indexOfBinKey(line: Uint8Array): number {
  const key = BIN_KEY;
  const first = key[0]!;
  for (let i = 0, last = line.length - key.length; i <= last; i++) {
    if (line[i] !== first) continue;
    let k = 1;
    while (k < key.length && line[i + k] === key[k]) k++;
    if (k === key.length) return i;
  }
  return -1;
}

/**
 * A section's block line, read: hands each entry line its vector ({@link nextVector}, through
 * `entryFromJson`) and, after it, ties its text forms to it ({@link take}). Every count, length and
 * offset in the line is checked against the bytes it points into before it is used, so a damaged or
 * hostile line fails with a plain Error (the caller names the file and line) and never allocates more
 * than the line's own size or reads out of range. Nothing it builds is returned before the section's
 * CRC is checked (sectioned-snapshot.ts).
 */
export class SectionBlocks implements VectorSource {
  readonly #count: number;
  readonly #values: Float32Array;
  readonly #indices: Uint8Array | Uint16Array;
  readonly #bytes: Uint8Array;
  #at: number;
  #value = 0;
  #index = 0;
  #entry = 0;
  readonly #terms: readonly string[];
  readonly #dedup: readonly unknown[];
  /** Null when the line's forms were made by another tokenizer: they are then skipped, and the entries are tokenized when indexed. */
  readonly #ids: Uint32Array | null;
  readonly #tfs: Uint32Array | null;
  #pair = 0;
  readonly #pairs: number;
  /** Per term, the last entry that named it (+1): a term twice in one entry is damage. */
  readonly #seen: Int32Array;
  /** The vectors the section's entries read from the block (made with the first). */
  #home: SectionVectors | undefined;

  /** The user the line names, and its count of entries. */
  readonly userId: string;
  readonly count: number;

  /**
   * Parses the block line of `userId`'s section of `count` entries (a full read, which has no table yet, checks them after): its
   * text, or its bytes (without the newline), which must be UTF-8 and start with {@link BLOCKS_PREFIX}. Throws a plain Error.
   */
  constructor(line: string | Uint8Array, userId?: string, count?: number) {
    const { value, bin: decoded } = typeof line === "string" ? parseLine(line) : readLine(line);
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("the block line is not a JSON object");
    const o = value as Record<string, unknown>;
    const named = o["blocks"];
    const n = o["n"];
    if (typeof named !== "string" || named.length === 0 || (userId !== undefined && named !== userId)) {
      throw new Error(`the block line names user ${String(named)}, not ${userId ?? "a user"}`);
    }
    if (!isCount(n) || n === 0 || (count !== undefined && n !== count)) throw new Error(`the block line counts ${String(n)} entries, not ${count ?? "some"}`);
    this.userId = named;
    this.count = n;
    const { values, indices, indexBytes, pairs, terms, dedup, forms } = o;
    const bin = decoded ?? o["bin"];
    if (!isCount(values) || !isCount(indices) || !isCount(pairs)) throw new Error("the block line has a bad values, indices or pairs count");
    if (indexBytes !== 1 && indexBytes !== 2) throw new Error(`the block line has a bad index width (${String(indexBytes)})`);
    if (!Array.isArray(terms) || !terms.every((t) => typeof t === "string")) throw new Error("the block line's terms are not a list of strings");
    if (!Array.isArray(dedup) || dedup.length !== n) throw new Error("the block line's dedup forms are not one per entry");
    if ((typeof bin !== "string" && decoded === null) || typeof forms !== "string") throw new Error("the block line has no bin or forms");
    const bytes = decoded ?? base64ToBytes(bin as string);
    if (bytes === null) throw new Error("the block line's bin is not base64");
    const varStart = 4 * values + indexBytes * indices;
    if (varStart > bytes.length) throw new Error(`the block line promises ${values} values and ${indices} indices, more than its ${bytes.length} bytes hold`);
    // Each pair takes two bytes at least.
    if (2 * pairs > bytes.length - varStart) throw new Error(`the block line promises ${pairs} token pairs, more than its bytes hold`);
    this.#count = n;
    this.#bytes = bytes;
    this.#at = varStart;
    this.#values = floats(bytes, values);
    this.#indices = indexBytes === 1 ? bytes.subarray(4 * values, 4 * values + indices) : uint16s(bytes, 4 * values, indices);
    this.#terms = terms;
    this.#dedup = dedup;
    this.#pairs = pairs;
    const usable = forms === textFormsId();
    this.#ids = usable ? new Uint32Array(pairs) : null;
    this.#tfs = usable ? new Uint32Array(pairs) : null;
    this.#seen = new Int32Array(terms.length);
  }

  #varint(): number {
    // Most numbers of a block take one byte (a term's count, a tf, a small term id).
    const b = this.#bytes[this.#at];
    if (b !== undefined && b < 0x80) {
      this.#at++;
      return b;
    }
    return this.#longVarint();
  }

  #longVarint(): number {
    const bytes = this.#bytes;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.#at >= bytes.length) throw new Error("the block line's bin ends inside a number");
      const b = bytes[this.#at++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (value > 0xffffffff) break;
        return value;
      }
    }
    throw new Error("the block line's bin holds a number out of range");
  }

  /** The next entry's vector, of `dim` components (the entry line's `embedding`). */
  nextVector(dim: number): Float32Array {
    if (!isCount(dim)) throw new Error(`field "embedding" is invalid (${String(dim)})`);
    const stored = this.#varint();
    const values = this.#values;
    if (stored === dim) {
      if (dim > values.length - this.#value) throw new Error(`a vector of ${dim} components goes past the block's values`);
      const out = zeroVector(dim);
      for (let i = 0; i < dim; i++) {
        const x = values[this.#value++]!;
        if (!Number.isFinite(x)) throw new Error("a vector in the block holds NaN or Infinity");
        out[i] = x;
      }
      return out;
    }
    if (stored > dim || dim > 65_536 || stored > values.length - this.#value || stored > this.#indices.length - this.#index) {
      throw new Error(`a vector of ${dim} components with ${stored} set does not fit the block`);
    }
    const out = zeroVector(dim);
    let previous = -1;
    for (let k = 0; k < stored; k++) {
      const index = this.#indices[this.#index++]!;
      const x = values[this.#value++]!;
      if (index <= previous || index >= dim || !Number.isFinite(x) || !isSet(x)) throw new Error("a sparse vector in the block is not well formed");
      out[index] = x;
      previous = index;
    }
    return out;
  }

  /**
   * The next entry's vector (of `dim` components, for the entry of `seq`), checked as {@link nextVector}
   * checks it and left in the block: the entry reads it from there ({@link BlockVectors}). Null when the
   * block's vectors so far have another dimension (then {@link nextVector} reads this one).
   */
  homeVector(dim: number, seq: number): BlockVectors | null {
    if (!isCount(dim)) throw new Error(`field "embedding" is invalid (${String(dim)})`);
    this.#home ??= new SectionVectors(dim, this.#values, this.#indices, this.#count, this.#terms, this.#ids, this.#tfs);
    if (this.#home.dim !== dim) return null;
    const stored = this.#varint();
    const values = this.#values;
    const valueAt = this.#value;
    if (stored === dim) {
      if (dim > values.length - valueAt) throw new Error(`a vector of ${dim} components goes past the block's values`);
      for (let i = valueAt, end = valueAt + dim; i < end; i++) if (!Number.isFinite(values[i]!)) throw new Error("a vector in the block holds NaN or Infinity");
      this.#value += dim;
      this.#home.push(seq, valueAt, -1, dim);
      return this.#home;
    }
    if (stored > dim || dim > 65_536 || stored > values.length - valueAt || stored > this.#indices.length - this.#index) {
      throw new Error(`a vector of ${dim} components with ${stored} set does not fit the block`);
    }
    const indices = this.#indices;
    const indexAt = this.#index;
    let previous = -1;
    for (let k = 0; k < stored; k++) {
      const index = indices[indexAt + k]!;
      const x = values[valueAt + k]!;
      if (index <= previous || index >= dim || !Number.isFinite(x) || !isSet(x)) throw new Error("a sparse vector in the block is not well formed");
      previous = index;
    }
    this.#value += stored;
    this.#index += stored;
    this.#home.push(seq, valueAt, indexAt, stored);
    return this.#home;
  }

  /** After `entry`'s line was parsed: reads its text forms and, when they are this tokenizer's, ties them to it. */
  take(entry: EntryRecord): void {
    const i = this.#entry++;
    if (i >= this.#count) throw new Error("the section holds more entries than its block line counts");
    const form = this.#dedup[i];
    if (!isLive(entry.status)) {
      if (form !== null) throw new Error(`the block line gives a dedup form to entry ${entry.id}, which is not live`);
      return;
    }
    if (form !== 0 && form !== 1 && typeof form !== "string") throw new Error(`the block line gives entry ${entry.id} no dedup form`);
    const distinct = this.#varint();
    if (form === 1 && distinct !== 0) throw new Error(`the block line gives tokens to entry ${entry.id}, whose forms it says are not stored`);
    if (distinct > this.#pairs - this.#pair) throw new Error(`entry ${entry.id} has more token pairs than the block line counts`);
    const start = this.#pair;
    const terms = this.#terms.length;
    for (let k = 0; k < distinct; k++) {
      const id = this.#varint();
      const tf = this.#varint();
      if (id >= terms || tf === 0 || this.#seen[id] === i + 1) throw new Error(`entry ${entry.id}'s tokens in the block are not well formed`);
      this.#seen[id] = i + 1;
      if (this.#ids !== null) {
        this.#ids[this.#pair] = id;
        this.#tfs![this.#pair] = tf;
      }
      this.#pair++;
    }
    // Forms of a text that is not ASCII are never used, whatever the line says (see isAscii).
    if (this.#ids === null || form === 1 || !isAscii(entry.content)) return;
    // An entry reading its vector from the block finds its forms there too: no object and no property per entry.
    if (this.#home !== undefined && blockHome(entry) === this.#home && this.#home.keepForms(entry.seq, start, this.#pair, form)) return;
    const forms: TextForms = {
      terms: this.#terms,
      ids: this.#ids,
      tfs: this.#tfs!,
      start,
      end: this.#pair,
      dedup: form === 0 ? entry.content.toLowerCase() : form,
    };
    attachTextForms(entry, forms);
  }

  /** Once every entry line was read: the block must have been used up exactly. */
  finish(): void {
    if (this.#entry !== this.#count || this.#at !== this.#bytes.length || this.#value !== this.#values.length || this.#index !== this.#indices.length) {
      throw new Error("the block line holds more than the section's entries use");
    }
    if (this.#pair !== this.#pairs) throw new Error(`the block line counts ${this.#pairs} token pairs but its entries hold ${this.#pair}`);
  }
}

/** `count` little-endian float32 values at the start of `bytes`, as an array of their own when the platform or alignment requires it. */
/**
 * A section's vectors as its block stores them (every value, then the sparse ones' indices), read by
 * the entries that were read with them, each found by its seq (the section's entries come in increasing
 * seq order: a binary search, with no map per entry).
 */
class SectionVectors implements BlockVectors {
  readonly dim: number;
  readonly #values: Float32Array;
  readonly #indices: Uint8Array | Uint16Array;
  /** Per entry with a vector here, in order: its seq, where its values start, where its indices start (−1: dense), how many values. */
  readonly #seqs: Float64Array;
  readonly #valueAt: Int32Array;
  readonly #indexAt: Int32Array;
  readonly #stored: Int32Array;
  #length = 0;
  /** Where {@link #find} last found a seq. */
  #hint = 0;
  /** The section's text forms (null: made by another tokenizer), and per entry here its pairs' range and dedup form (made with the first kept). */
  readonly #terms: readonly string[];
  readonly #ids: Uint32Array | null;
  readonly #tfs: Uint32Array | null;
  #formStart: Int32Array | null = null;
  #formEnd: Int32Array | null = null;
  #formDedup: (string | 0 | undefined)[] | null = null;
  /** Per vector, 1 when a user's index reads it here ({@link defer}); and the norms its reads computed (−1: not yet). */
  #marks: Uint8Array | null = null;
  #marked = 0;
  #norms: Float64Array | null = null;
  /** Per vector, 1 once a read found it unit length as stored (normalising changes none of its values). */
  #units: Uint8Array | null = null;

  constructor(
    dim: number,
    values: Float32Array,
    indices: Uint8Array | Uint16Array,
    entries: number,
    terms: readonly string[],
    ids: Uint32Array | null,
    tfs: Uint32Array | null,
  ) {
    this.dim = dim;
    this.#values = values;
    this.#indices = indices;
    this.#seqs = new Float64Array(entries);
    this.#valueAt = new Int32Array(entries);
    this.#indexAt = new Int32Array(entries);
    this.#stored = new Int32Array(entries);
    this.#terms = terms;
    this.#ids = ids;
    this.#tfs = tfs;
  }

  /** Keeps the text forms of the entry of `seq`, the last one pushed; false when it is not (the caller ties them to the entry). */
  keepForms(seq: number, start: number, end: number, dedup: string | 0): boolean {
    const i = this.#length - 1;
    if (i < 0 || this.#seqs[i] !== seq || this.#ids === null) return false;
    if (this.#formStart === null) {
      this.#formStart = new Int32Array(this.#seqs.length).fill(-1);
      this.#formEnd = new Int32Array(this.#seqs.length);
      this.#formDedup = new Array<string | 0 | undefined>(this.#seqs.length);
    }
    this.#formStart[i] = start;
    this.#formEnd![i] = end;
    this.#formDedup![i] = dedup;
    return true;
  }

  forms(record: EntryRecord): TextForms | undefined {
    if (this.#formStart === null) return undefined;
    const i = this.#find(record.seq);
    if (i < 0 || this.#formStart[i]! < 0) return undefined;
    const dedup = this.#formDedup![i]!;
    return {
      terms: this.#terms,
      ids: this.#ids!,
      tfs: this.#tfs!,
      start: this.#formStart[i]!,
      end: this.#formEnd![i]!,
      dedup: dedup === 0 ? record.content.toLowerCase() : dedup,
    };
  }

  takeFormsInto(record: EntryRecord, slot: TextFormsSlot): boolean {
    if (this.#formStart === null) return false;
    const i = this.#find(record.seq);
    if (i < 0 || this.#formStart[i]! < 0) return false;
    const dedup = this.#formDedup![i]!;
    slot.terms = this.#terms;
    slot.ids = this.#ids!;
    slot.tfs = this.#tfs!;
    slot.start = this.#formStart[i]!;
    slot.end = this.#formEnd![i]!;
    slot.dedup = dedup === 0 ? null : dedup;
    this.#formStart[i] = -1;
    this.#formDedup![i] = undefined;
    return true;
  }

  push(seq: number, valueAt: number, indexAt: number, stored: number): void {
    const i = this.#length++;
    if (i >= this.#seqs.length) throw new Error("the section holds more vectors than its block line counts entries");
    this.#seqs[i] = seq;
    this.#valueAt[i] = valueAt;
    this.#indexAt[i] = indexAt;
    this.#stored[i] = stored;
  }

  #find(seq: number): number {
    const seqs = this.#seqs;
    // A build reads its records in seq order, several times each: the next one, or the same one, is tried first.
    const hint = this.#hint;
    if (hint < this.#length && seqs[hint] === seq) return hint;
    if (hint + 1 < this.#length && seqs[hint + 1] === seq) return (this.#hint = hint + 1);
    let lo = 0;
    let hi = this.#length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = seqs[mid]!;
      if (at === seq) return (this.#hint = mid);
      if (at < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    // Out of order only in a section that its read then refuses: found the slow way all the same.
    for (let i = 0; i < this.#length; i++) if (seqs[i] === seq) return i;
    return -1;
  }

  copyInto(seq: number, out: Float32Array): boolean {
    const i = this.#find(seq);
    if (i < 0 || out.length !== this.dim) return false;
    const values = this.#values;
    const from = this.#valueAt[i]!;
    const stored = this.#stored[i]!;
    const indexAt = this.#indexAt[i]!;
    if (indexAt < 0) {
      for (let c = 0; c < stored; c++) out[c] = values[from + c]!;
      return true;
    }
    out.fill(0);
    const indices = this.#indices;
    for (let k = 0; k < stored; k++) out[indices[indexAt + k]!] = values[from + k]!;
    return true;
  }

  addUnitTo(seq: number, sink: SparsePairSink): boolean {
    const i = this.#find(seq);
    if (i < 0) return false;
    const indexAt = this.#indexAt[i]!;
    const valueAt = this.#valueAt[i]!;
    const stored = this.#stored[i]!;
    if (indexAt < 0 || !unitAsStored(this.#indices, indexAt, this.#values, valueAt, stored, this.dim)) return false;
    return sink.addSparse(seq, this.#indices, indexAt, this.#values, valueAt, stored);
  }

  defer(seq: number): boolean {
    const i = this.#find(seq);
    if (i < 0) return false;
    const marks = (this.#marks ??= new Uint8Array(this.#length));
    if (marks[i] === 0) {
      marks[i] = 1;
      this.#marked++;
    }
    return true;
  }

  get deferred(): number {
    return this.#marked;
  }

  undefer(): void {
    this.#marks = null;
    this.#marked = 0;
    this.#norms = null;
    this.#units = null;
  }

  scanDeferred(query: Float64Array, sink: ScoreOffer): void {
    const marks = this.#marks;
    if (marks === null) return;
    const seqs = this.#seqs;
    for (let i = 0, n = this.#length; i < n; i++) {
      if (marks[i] === 0) continue;
      const score = this.#score(i, query);
      if (score > 0) sink.offer(seqs[i]!, score);
    }
  }

  scoreDeferred(seq: number, query: Float64Array): number | undefined {
    const i = this.#find(seq);
    return i < 0 || this.#marks === null || this.#marks[i] === 0 ? undefined : this.#score(i, query);
  }

  /**
   * The score of vector `i` against `query` as the vector index gives it once it holds the vector: each stored value
   * v made `fround(v / norm)` as `normalize` makes it (v itself for a zero norm), and the products summed in `dotAt`'s
   * order (component c into sum c mod 4, the tail past the last multiple of 4 into the first, each in ascending order,
   * combined as s0 + s1 + (s2 + s3)). The components left out (zero here, or zero in the query) add ±0, which changes
   * no sum starting at +0: so the index's layouts, which leave out one or the other, give this to the bit.
   */
  #score(i: number, query: Float64Array): number {
    const norm = this.#norm(i);
    if (norm === 0) return 0;
    const values = this.#values;
    const from = this.#valueAt[i]!;
    const stored = this.#stored[i]!;
    const indexAt = this.#indexAt[i]!;
    const end4 = this.dim - (this.dim % 4);
    // The partial sums in an array indexed by lane: the lanes of a sparse vector's components come at random, and a
    // branch per lane was mispredicted about half the time.
    const sums = laneSums.fill(0);
    const units = (this.#units ??= new Uint8Array(this.#length));
    if (units[i] === 1) {
      // Unit length as stored: normalising leaves every value as it is (found by an earlier read).
      if (indexAt < 0)
        for (let c = 0; c < stored; c++) {
          const lane = c < end4 ? c & 3 : 0;
          sums[lane] = sums[lane]! + values[from + c]! * query[c]!;
        }
      else {
        const indices = this.#indices;
        for (let k = 0; k < stored; k++) {
          const c = indices[indexAt + k]!;
          const lane = c < end4 ? c & 3 : 0;
          sums[lane] = sums[lane]! + values[from + k]! * query[c]!;
        }
      }
    } else {
      let same = 1;
      if (indexAt < 0) {
        for (let c = 0; c < stored; c++) {
          const x = values[from + c]!;
          const unit = Math.fround(x / norm);
          if (unit !== x) same = 0;
          const lane = c < end4 ? c & 3 : 0;
          sums[lane] = sums[lane]! + unit * query[c]!;
        }
      } else {
        const indices = this.#indices;
        for (let k = 0; k < stored; k++) {
          const c = indices[indexAt + k]!;
          const x = values[from + k]!;
          const unit = Math.fround(x / norm);
          if (unit !== x) same = 0;
          const lane = c < end4 ? c & 3 : 0;
          sums[lane] = sums[lane]! + unit * query[c]!;
        }
      }
      units[i] = same;
    }
    return sums[0]! + sums[1]! + (sums[2]! + sums[3]!);
  }

  /** The norm `normalize` divides vector `i` by (`Math.sqrt(dot(v, v))`), computed once per vector marked. */
  #norm(i: number): number {
    const norms = (this.#norms ??= new Float64Array(this.#length).fill(-1));
    const known = norms[i]!;
    if (known >= 0) return known;
    const indexAt = this.#indexAt[i]!;
    const squares = storedSelfDot(indexAt < 0 ? null : this.#indices, indexAt, this.#values, this.#valueAt[i]!, this.#stored[i]!, this.dim);
    const norm = Math.sqrt(squares);
    norms[i] = norm;
    return norm;
  }

  vector(seq: number): Float32Array | undefined {
    const out = new Float32Array(this.dim);
    return this.copyInto(seq, out) ? out : undefined;
  }

  nonZero(seq: number): number {
    const i = this.#find(seq);
    if (i < 0) return 0;
    const values = this.#values;
    let count = 0;
    for (let k = this.#valueAt[i]!, end = k + this.#stored[i]!; k < end; k++) if (values[k] !== 0) count++;
    return count;
  }
}

/** {@link SectionVectors}' partial sums of one score, shared (a score never runs inside another). */
const laneSums = new Float64Array(4);

function floats(bytes: Uint8Array, count: number): Float32Array {
  if (littleEndian && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, count);
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, true);
  return out;
}

function uint16s(bytes: Uint8Array, at: number, count: number): Uint16Array {
  if (littleEndian && (bytes.byteOffset + at) % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset + at, count);
  const out = new Uint16Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) out[i] = view.getUint16(at + 2 * i, true);
  return out;
}
