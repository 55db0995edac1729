// Float32 vectors <-> base64 of their little-endian bytes, without node:buffer.

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

/** Encodes bytes as standard base64 (with padding). */
export function bytesToBase64(bytes: Uint8Array): string {
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

/** Decodes standard base64; returns null when the text is not valid base64. */
export function base64ToBytes(text: string): Uint8Array | null {
  const length = text.length;
  if (length % 4 !== 0) return null;
  let pad = 0;
  if (length > 0 && text.charCodeAt(length - 1) === 61) pad = text.charCodeAt(length - 2) === 61 ? 2 : 1;
  const out = new Uint8Array((length / 4) * 3 - pad);
  const full = pad === 0 ? length : length - 4;
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const a = LOOKUP[text.charCodeAt(i) & 127]!;
    const b = LOOKUP[text.charCodeAt(i + 1) & 127]!;
    const c = LOOKUP[text.charCodeAt(i + 2) & 127]!;
    const d = LOOKUP[text.charCodeAt(i + 3) & 127]!;
    // A character outside the alphabet (or above 127) maps to -1 or is caught by the range check.
    if ((a | b | c | d) < 0 || (text.charCodeAt(i) | text.charCodeAt(i + 1) | text.charCodeAt(i + 2) | text.charCodeAt(i + 3)) > 127) return null;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
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

/** Base64 of the vector's float32 values, little-endian on every platform. */
export function vectorToBase64(vector: Float32Array): string {
  if (littleEndian) return bytesToBase64(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return bytesToBase64(new Uint8Array(view.buffer));
}

/** Inverse of {@link vectorToBase64}; null when the text is not a whole number of float32 values. */
export function base64ToVector(text: string): Float32Array | null {
  const bytes = base64ToBytes(text);
  if (bytes === null || bytes.length % 4 !== 0) return null;
  if (littleEndian) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
