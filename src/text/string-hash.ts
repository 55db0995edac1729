// A fast 32-bit string hash, seeded: the hashing embedder's features and the similarity judge's token fingerprints.

/**
 * 32-bit FNV-1a over the UTF-16 code units of `text`, started from `seed`, then murmur3's fmix32 so
 * that the low bits (the bucket) and the top bit (the sign) are both well mixed. Unsigned result.
 */
export function hashString(text: string, seed: number): number {
  return hashRange(text, 0, text.length, seed);
}

/** {@link hashString} of `text.slice(start, end)`, without building the slice. */
export function hashRange(text: string, start: number, end: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = start; i < end; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** murmur3's finalisation of a 32-bit hash: every input bit reaches every output bit. Unsigned result. */
function fmix32(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A 32-bit hash of `text` that reads its UTF-16 code units two at a time: murmur3's 32-bit mixing of each
 * pair as one 32-bit block (the last unit alone when their count is odd), then its finalisation with the
 * length. Not {@link hashString}'s values: for a hash held only in memory (the dedup index's), where a
 * long text costs about half the multiplications in sequence. Unsigned result.
 */
export function hashPairs(text: string, seed: number): number {
  return pairsHash(text, seed, false);
}

/** {@link hashPairs} of `text.toLowerCase()` for an ASCII `text`, without making that string. */
export function hashPairsLowerAscii(text: string, seed: number): number {
  return pairsHash(text, seed, true);
}

function pairsHash(text: string, seed: number, lower: boolean): number {
  const length = text.length;
  let h = seed >>> 0;
  let i = 0;
  for (; i + 1 < length; i += 2) {
    let a = text.charCodeAt(i);
    let b = text.charCodeAt(i + 1);
    if (lower) {
      // A-Z (65-90) to a-z: what toLowerCase does to ASCII.
      if ((a - 65) >>> 0 < 26) a += 32;
      if ((b - 65) >>> 0 < 26) b += 32;
    }
    let k = a | (b << 16);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (i < length) {
    let a = text.charCodeAt(i);
    if (lower && (a - 65) >>> 0 < 26) a += 32;
    let k = Math.imul(a, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
  }
  return fmix32(h ^ length);
}
