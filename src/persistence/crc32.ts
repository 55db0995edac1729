// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), slicing-by-8 so checking a large snapshot stays cheap.

const POLY = 0xedb88320;

// TABLES[k][b] is the CRC of byte b followed by k zero bytes; eight tables let the loop eat 8 bytes per step.
const TABLES: Uint32Array[] = [];
{
  const base = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLY ^ (c >>> 1) : c >>> 1;
    base[n] = c >>> 0;
  }
  TABLES.push(base);
  for (let t = 1; t < 8; t++) {
    const prev = TABLES[t - 1]!;
    const next = new Uint32Array(256);
    for (let n = 0; n < 256; n++) next[n] = (base[prev[n]! & 0xff]! ^ (prev[n]! >>> 8)) >>> 0;
    TABLES.push(next);
  }
}
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];

/**
 * Continues a CRC-32 over more bytes. Start with `crc32Update(0, bytes)`;
 * `crc32Update(crc32Update(0, a), b)` equals the CRC of `a` followed by `b`.
 *
 * @example
 * ```ts
 * crc32Update(0, new TextEncoder().encode("123456789")); // 0xcbf43926
 * ```
 */
export function crc32Update(crc: number, bytes: Uint8Array): number {
  if (native !== null && bytes.length >= NATIVE_FROM) return native(bytes, crc);
  return crc32UpdateJs(crc, bytes);
}

/**
 * A platform CRC-32 with the same results (zlib's, in Node: several GB/s where the table loop does
 * well under 1): `(bytes, crc)` continues `crc` over `bytes`. Offered by the Node file system
 * (file/node-file-system.ts); a runtime that has none keeps the table loop.
 */
export type NativeCrc32 = (bytes: Uint8Array, crc: number) => number;

let native: NativeCrc32 | null = null;

/** Below this many bytes the table loop is as fast as a call into the platform (a journal line, a table record). */
const NATIVE_FROM = 256;

/**
 * Makes {@link crc32Update} use `impl` for long inputs, after checking that it gives the table loop's
 * results (the standard check value, a continuation, a long input); returns whether it is used. `null`
 * goes back to the table loop.
 */
export function useNativeCrc32(impl: NativeCrc32 | null): boolean {
  if (impl === null) {
    native = null;
    return false;
  }
  const probe = new Uint8Array(1031);
  for (let i = 0; i < probe.length; i++) probe[i] = (i * 131 + 7) & 0xff;
  const check = new TextEncoder().encode("123456789");
  let agrees: boolean;
  try {
    agrees =
      impl(check, 0) === 0xcbf43926 &&
      impl(probe, 0) === crc32UpdateJs(0, probe) &&
      impl(probe.subarray(5), crc32UpdateJs(0, probe.subarray(0, 5))) === crc32UpdateJs(0, probe);
  } catch {
    agrees = false;
  }
  native = agrees ? impl : null;
  return agrees;
}

/** The table loop: the CRC every runtime can compute, and the reference a platform's CRC is checked against. */
export function crc32UpdateJs(crc: number, bytes: Uint8Array): number {
  let c = ~crc >>> 0;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n % 8);
  for (; i < end8; i += 8) {
    const lo = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    c =
      T7[lo & 0xff]! ^
      T6[(lo >>> 8) & 0xff]! ^
      T5[(lo >>> 16) & 0xff]! ^
      T4[lo >>> 24]! ^
      T3[bytes[i + 4]!]! ^
      T2[bytes[i + 5]!]! ^
      T1[bytes[i + 6]!]! ^
      T0[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = T0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** CRC-32 of some bytes, as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array): number {
  return crc32Update(0, bytes);
}

/** CRC-32 of an ASCII-only string (every char below 128), without allocating its bytes. */
export function crc32UpdateAscii(crc: number, text: string): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < text.length; i++) c = T0[(c ^ text.charCodeAt(i)) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * `a · b mod P` for two polynomials over GF(2) in the CRC's reflected form (bit 31 is x^0, bit 0 is x^31; P is
 * the CRC-32 polynomial, x^32 ≡ {@link POLY}). Each set bit of `a`, from x^0 up, adds `b` times that power.
 */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  let power = b;
  for (let bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if ((a & bit) !== 0) product ^= power;
    power = power & 1 ? (power >>> 1) ^ POLY : power >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) mod P for k = 0..63 (reflected form): x^1 is bit 30, and each is the square of the one before. */
const X_TO_2K: number[] = [0x40000000];
for (let k = 1; k < 64; k++) X_TO_2K.push(multiplyModP(X_TO_2K[k - 1]!, X_TO_2K[k - 1]!));

/**
 * The CRC-32 of `a` followed by `b`, from `crc32Update(0, a)`, `crc32Update(0, b)` and `b`'s length, without reading
 * either: `a`'s CRC is moved past `b`'s length (multiplied by x^(8 · length) mod P; the CRC's pre- and
 * post-conditioning cancel out) and `b`'s is added. O(log length). Lets the open of a sectioned snapshot check the
 * whole file's CRC from its parts' (file/sectioned-snapshot.ts).
 *
 * @example
 * ```ts
 * const [a, b] = [new TextEncoder().encode("12345"), new TextEncoder().encode("6789")];
 * crc32Combine(crc32Update(0, a), crc32Update(0, b), b.length); // 0xcbf43926, the CRC of "123456789"
 * ```
 */
export function crc32Combine(first: number, second: number, secondLength: number): number {
  // x^(8 · secondLength) = the product of x^(2^k) over the set bits k of secondLength · 8 (k from 3).
  let shift = 0x80000000;
  let rest = secondLength;
  for (let k = 3; rest > 0; k++) {
    if (rest % 2 === 1) shift = multiplyModP(X_TO_2K[k]!, shift);
    rest = Math.floor(rest / 2);
  }
  return (multiplyModP(shift, first) ^ second) >>> 0;
}
