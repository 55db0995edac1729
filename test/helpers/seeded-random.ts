// A small seeded generator for tests that need large deterministic inputs or replayable runs.

/** xorshift32: numbers in [0, 1), the same sequence for the same seed on every runtime. */
export function seededRandom(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}
