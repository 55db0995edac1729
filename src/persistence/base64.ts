// Float32 vectors <-> base64 of their little-endian bytes, without node:buffer.

import { allFinite } from "../embedding/vector-math.ts";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const EQUALS = 61;
// Every byte written is ASCII, where latin1 and UTF-8 agree; decoding a byte buffer once is several
// times faster than growing a string by concatenation.
const ascii = new TextDecoder("latin1");
let scratch = new Uint8Array(0);

/** The runtime's own encoder (`Uint8Array.prototype.toBase64`, or Node's `Buffer`), a few times faster than the loop below. */
const nativeEncode: ((bytes: Uint8Array) => string) | null = (() => {
  const toBase64 = (Uint8Array.prototype as unknown as { toBase64?: (this: Uint8Array) => string }).toBase64;
  if (typeof toBase64 === "function") return (bytes) => toBase64.call(bytes);
  const buffer = (globalThis as { Buffer?: { from(data: ArrayBufferLike, offset: number, length: number): { toString(encoding: string): string } } }).Buffer;
  if (buffer !== undefined && typeof buffer.from === "function") {
    return (bytes) => buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }
  return null;
})();

/** Encodes bytes as standard base64 (with padding). */
export function bytesToBase64(bytes: Uint8Array): string {
  return nativeEncode === null ? encodeLoop(bytes) : nativeEncode(bytes);
}

/** The portable encoder; exported for the test that holds the native ones to it. */
export function encodeLoop(bytes: Uint8Array): string {
  const length = 4 * Math.ceil(bytes.length / 3);
  if (scratch.length < length) scratch = new Uint8Array(Math.max(length, 2 * scratch.length));
  const out = scratch;
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = CODES[(n >> 6) & 63]!;
    out[o++] = CODES[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = rest === 2 ? CODES[(n >> 6) & 63]! : EQUALS;
    out[o++] = EQUALS;
  }
  return ascii.decode(out.subarray(0, o));
}

/**
 * The runtime's own base64 decoder, when it has one: `Uint8Array.fromBase64` (recent browsers, Bun,
 * Deno) or `Buffer` (Node). Several times faster than the loop below, which matters when a snapshot
 * holds 100,000 vectors. Both are more lenient than this module (they skip or accept characters it
 * rejects), so their answer is used only when it has exactly the expected length and the text has no
 * base64url characters; anything else goes to the strict loop, which has the last word.
 */
const nativeDecode: ((text: string) => Uint8Array | null) | null = (() => {
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (typeof fromBase64 === "function") {
    return (text) => {
      try {
        return fromBase64(text);
      } catch {
        return null; // the strict loop decides
      }
    };
  }
  const buffer = (globalThis as { Buffer?: { from(text: string, encoding: string): Uint8Array } }).Buffer;
  if (buffer !== undefined && typeof buffer.from === "function") {
    // A copy of its own: a small Buffer is a view into a shared pool, and vectors keep their bytes.
    return (text) => (text.includes("-") || text.includes("_") ? null : new Uint8Array(buffer.from(text, "base64")));
  }
  return null;
})();

/** Decodes standard base64; returns null when the text is not valid base64. */
export function base64ToBytes(text: string): Uint8Array | null {
  const length = text.length;
  if (length % 4 !== 0) return null;
  let pad = 0;
  if (length > 0 && text.charCodeAt(length - 1) === 61) pad = text.charCodeAt(length - 2) === 61 ? 2 : 1;
  const size = (length / 4) * 3 - pad;
  const decoded = nativeDecode?.(text) ?? null;
  if (decoded !== null && decoded.length === size) return decoded;
  return strictDecode(text, length, pad, size);
}

function strictDecode(text: string, length: number, pad: number, size: number): Uint8Array | null {
  const out = new Uint8Array(size);
  const full = pad === 0 ? length : length - 4;
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const c0 = text.charCodeAt(i);
    const c1 = text.charCodeAt(i + 1);
    const c2 = text.charCodeAt(i + 2);
    const c3 = text.charCodeAt(i + 3);
    // A character above 127 fails the range check; one inside ASCII but outside the alphabet maps to -1.
    if ((c0 | c1 | c2 | c3) > 127) return null;
    const n = (LOOKUP[c0]! << 18) | (LOOKUP[c1]! << 12) | (LOOKUP[c2]! << 6) | LOOKUP[c3]!;
    if (n < 0) return null;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  if (pad > 0) {
    const a = sextet(text, full);
    const b = sextet(text, full + 1);
    const c = pad === 2 ? 0 : sextet(text, full + 2);
    if (a < 0 || b < 0 || c < 0) return null;
    const n = (a << 18) | (b << 12) | (c << 6);
    out[o] = n >> 16;
    if (pad === 1) out[o + 1] = (n >> 8) & 255;
  }
  return out;
}

function sextet(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 128 ? LOOKUP[code]! : -1;
}

/** The strict loop on a string; exported for the test that holds {@link base64BytesToBytes} to it. */
export function strictBase64ToBytes(text: string): Uint8Array | null {
  const length = text.length;
  if (length % 4 !== 0) return null;
  let pad = 0;
  if (length > 0 && text.charCodeAt(length - 1) === EQUALS) pad = text.charCodeAt(length - 2) === EQUALS ? 2 : 1;
  return strictDecode(text, length, pad, (length / 4) * 3 - pad);
}

/** Per pair of base64 characters (first | second << 8, each a byte: a little-endian 16-bit read), their 12 bits; -1 when either is not in the alphabet. Made on first use (128 KiB). */
let pairBits: Int16Array | null = null;

function pairTable(): Int16Array {
  if (pairBits !== null) return pairBits;
  const table = new Int16Array(65_536).fill(-1);
  for (let a = 0; a < 64; a++) for (let b = 0; b < 64; b++) table[CODES[a]! | (CODES[b]! << 8)] = (a << 6) | b;
  return (pairBits = table);
}

/**
 * Decodes standard base64 held as bytes (`bytes[start..end)`, one byte per character) by the strict
 * loop's rules (see {@link strictBase64ToBytes}): the same bytes, or null for the same inputs. A
 * snapshot's block line is mostly base64 (docs/decisions.md, "Snapshot v6"): decoding it from the
 * file's bytes spares a string of it (tens of MB for a user of 100,000 entries), the JSON parser's
 * scan of that string, and a copy.
 */
export function base64BytesToBytes(bytes: Uint8Array, start = 0, end: number = bytes.length): Uint8Array | null {
  const length = end - start;
  if (length % 4 !== 0) return null;
  let pad = 0;
  if (length > 0 && bytes[end - 1] === EQUALS) pad = bytes[end - 2] === EQUALS ? 2 : 1;
  const out = new Uint8Array((length / 4) * 3 - pad);
  const full = start + (pad === 0 ? length : length - 4);
  const pairs = pairTable();
  // Four characters per read (a third faster than a byte at a time), two per lookup; a byte outside the alphabet (above 127 too) gives -1.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = 0;
  for (let i = start; i < full; i += 4) {
    const four = view.getUint32(i, true);
    const high = pairs[four & 0xffff]!;
    const low = pairs[four >>> 16]!;
    if ((high | low) < 0) return null;
    const n = (high << 12) | low;
    out[o] = n >> 16;
    out[o + 1] = (n >> 8) & 255;
    out[o + 2] = n & 255;
    o += 3;
  }
  if (pad > 0) {
    const a = byteSextet(bytes[full]!);
    const b = byteSextet(bytes[full + 1]!);
    const c = pad === 2 ? 0 : byteSextet(bytes[full + 2]!);
    if (a < 0 || b < 0 || c < 0) return null;
    const n = (a << 18) | (b << 12) | (c << 6);
    out[o] = n >> 16;
    if (pad === 1) out[o + 1] = (n >> 8) & 255;
  }
  return out;
}

function byteSextet(code: number): number {
  return code < 128 ? LOOKUP[code]! : -1;
}

/** Base64 of the vector's float32 values, little-endian on every platform. */
export function vectorToBase64(vector: Float32Array): string {
  if (littleEndian) return bytesToBase64(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return bytesToBase64(new Uint8Array(view.buffer));
}

/**
 * Inverse of {@link vectorToBase64}; null when the text is not a whole number of float32 values, or
 * when one of them is NaN or ±Infinity: no index can hold such a vector, and a store that accepted
 * one from a file or an import would fail on every later open.
 */
export function base64ToVector(text: string): Float32Array | null {
  const bytes = slabDecode(text) ?? base64ToBytes(text);
  if (bytes === null || bytes.length % 4 !== 0) return null;
  let out: Float32Array;
  if (littleEndian) {
    out = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  }
  return allFinite(out) ? out : null;
}

/** Node's `Buffer`, to decode base64 into memory we choose (null elsewhere: browsers, Deno). */
const nodeBuffer = (globalThis as { Buffer?: { from(data: ArrayBuffer, offset: number, length: number): { write(text: string, encoding: string): number } } })
  .Buffer;

/** Vectors decoded in Node share ArrayBuffers of this size, each vector its own aligned range (never written again). */
const SLAB_BYTES = 16 * 1024;
let slab = new ArrayBuffer(0);
let slabUsed = 0;

/**
 * Decodes a vector's base64 into the current slab, in Node, when the text is plain standard base64 of
 * a size that fits; null otherwise (the caller decodes it the general way, which has the last word).
 * A fresh ArrayBuffer for every vector was most of the cost of decoding 100,000 of them (an import, a
 * snapshot), and each costs about 150 bytes of bookkeeping more than a range of a shared one
 * (docs/bench/bulk-ingest.md). A slab is freed once none of its vectors is reachable.
 */
function slabDecode(text: string): Uint8Array | null {
  if (nodeBuffer === undefined || !littleEndian) return null;
  const length = text.length;
  if (length % 4 !== 0 || length === 0) return null;
  const pad = text.charCodeAt(length - 1) !== 61 ? 0 : text.charCodeAt(length - 2) === 61 ? 2 : 1;
  const size = (length / 4) * 3 - pad;
  if (size % 4 !== 0 || size > SLAB_BYTES / 4 || text.includes("-") || text.includes("_")) return null;
  if (slabUsed + size > slab.byteLength) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  // Node's decoder skips characters outside the alphabet: fewer bytes than the length promises means the text was not plain base64.
  if (nodeBuffer.from(slab, slabUsed, size).write(text, "base64") !== size) {
    // The range stays free for the next vector: it must hold zeros again ({@link slabFloats} hands out zeros).
    new Uint8Array(slab, slabUsed, size).fill(0);
    return null;
  }
  const bytes = new Uint8Array(slab, slabUsed, size);
  slabUsed += size;
  return bytes;
}

/**
 * `dim` zeros in the current slab (see {@link slabDecode}), in Node; null elsewhere or when too long.
 * A range is handed out once, so it holds zeros until its vector is filled in.
 */
function slabFloats(dim: number): Float32Array | null {
  const size = 4 * dim;
  if (nodeBuffer === undefined || size === 0 || size > SLAB_BYTES / 4) return null;
  if (slabUsed + size > slab.byteLength) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const out = new Float32Array(slab, slabUsed, dim);
  slabUsed += size;
  return out;
}

/** `dim` zeros for a vector a decoder fills in: in Node a range of the current slab (see {@link slabFloats}), elsewhere an array of its own. */
export function zeroVector(dim: number): Float32Array {
  return slabFloats(dim) ?? new Float32Array(dim);
}

/**
 * A vector's non-zero components as base64 of n little-endian float32 values followed by their n
 * indices as little-endian uint16, ascending; null when that would not be smaller than
 * {@link vectorToBase64} by at least a third (a dense model's vector) or the vector is too long for
 * 16-bit indices. -0 counts as non-zero, so every vector comes back bit for bit. A hashing vector has
 * about a quarter of its components set: this is half the bytes to encode, checksum and write.
 */
export function vectorToSparseBase64(vector: Float32Array): string | null {
  const dim = vector.length;
  if (dim > 65_536) return null;
  // 6 bytes per set component against 4 per component: sparse only when it saves a third or more.
  const most = Math.floor((4 * dim) / 9);
  if (sparseValues.length < dim) {
    sparseValues = new Float32Array(dim);
    sparseIndices = new Uint16Array(dim);
    sparseBytes = new Uint8Array(6 * dim);
  }
  const values = sparseValues;
  const indices = sparseIndices;
  // By bit pattern: +0 is the one float32 whose bits are all zero (-0 has the sign bit set). Every
  // component is written and the count moves on only for a set one: no branch to mispredict, about
  // twice as fast on a vector with a quarter of its components set.
  const bits = new Uint32Array(vector.buffer, vector.byteOffset, dim);
  let count = 0;
  for (let start = 0; start < dim; start += 64) {
    const end = Math.min(dim, start + 64);
    for (let i = start; i < end; i++) {
      const b = bits[i]!;
      values[count] = vector[i]!;
      indices[count] = i;
      count += (b | -b) >>> 31;
    }
    if (count > most) return null; // a dense vector (a model's): given up on early
  }
  const bytes = sparseBytes.subarray(0, 6 * count);
  if (littleEndian) {
    bytes.set(new Uint8Array(values.buffer, 0, 4 * count));
    bytes.set(new Uint8Array(indices.buffer, 0, 2 * count), 4 * count);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let k = 0; k < count; k++) {
      view.setFloat32(4 * k, values[k]!, true);
      view.setUint16(4 * count + 2 * k, indices[k]!, true);
    }
  }
  return bytesToBase64(bytes);
}

// Scratch space of the sparse encoder, grown to the longest vector seen (the base64 text is the only allocation).
let sparseValues = new Float32Array(0);
let sparseIndices = new Uint16Array(0);
let sparseBytes = new Uint8Array(0);

/** Where {@link scratchDecode} puts its bytes (grown to the longest text seen), and views of it made once per growth. */
let scratchBytes = new Uint8Array(0);
let scratchView = new DataView(scratchBytes.buffer);
let scratchWriter: { write(text: string, offset: number, length: number, encoding: string): number } | null = null;

/**
 * Decodes plain standard base64 into {@link scratchBytes}, in Node; returns the byte count, or -1
 * elsewhere or when the text is not plain base64 (the caller decodes it with {@link base64ToBytes},
 * which has the last word). The bytes are read before the next call. A sparse vector's bytes are
 * only read (into the vector), so a fresh buffer and a copy per vector were garbage: a first
 * recall of a user with 100,000 entries decodes 100,000 of them (docs/bench/cold-start.md).
 */
function scratchDecode(text: string): number {
  if (nodeBuffer === undefined) return -1;
  const length = text.length;
  if (length % 4 !== 0 || length === 0) return -1;
  const pad = text.charCodeAt(length - 1) !== 61 ? 0 : text.charCodeAt(length - 2) === 61 ? 2 : 1;
  const size = (length / 4) * 3 - pad;
  if (text.includes("-") || text.includes("_")) return -1;
  if (scratchWriter === null || scratchBytes.length < size) {
    scratchBytes = new Uint8Array(Math.max(size, 2 * scratchBytes.length, 1024));
    scratchView = new DataView(scratchBytes.buffer);
    scratchWriter = nodeBuffer.from(scratchBytes.buffer, 0, scratchBytes.length) as unknown as typeof scratchWriter;
  }
  // As in slabDecode: Node skips characters outside the alphabet, so fewer bytes than promised means not plain base64.
  return scratchWriter!.write(text, 0, size, "base64") === size ? size : -1;
}

/** Inverse of {@link vectorToSparseBase64} for a vector of `dim` components; null when the text does not describe one. */
export function sparseBase64ToVector(text: string, dim: number): Float32Array | null {
  if (!Number.isSafeInteger(dim) || dim < 0 || dim > 65_536) return null;
  let view: DataView;
  let length = scratchDecode(text);
  if (length >= 0) {
    view = scratchView;
  } else {
    const bytes = base64ToBytes(text);
    if (bytes === null) return null;
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    length = bytes.length;
  }
  if (length % 6 !== 0) return null;
  const count = length / 6;
  const out = slabFloats(dim) ?? new Float32Array(dim);
  let previous = -1;
  for (let k = 0; k < count; k++) {
    const index = view.getUint16(4 * count + 2 * k, true);
    const value = view.getFloat32(4 * k, true);
    // Indices strictly ascending and in range, values finite and set: anything else is not our encoding.
    if (index <= previous || index >= dim || !Number.isFinite(value) || !isSet(value)) return null;
    out[index] = value;
    previous = index;
  }
  return out;
}

/** True for every float32 but +0 (so -0 survives the sparse form). */
function isSet(x: number): boolean {
  return x !== 0 || 1 / x < 0;
}
