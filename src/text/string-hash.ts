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
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
