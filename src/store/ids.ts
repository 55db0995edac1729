// Entry ids: "<seq as 12 hex digits>-<4 random hex digits>", unique in a store, free of user information.

/** Random 16-bit suffixes, fetched in bulk: one `getRandomValues` call per id cost more than the rest of the id. */
const pool = new Uint16Array(256);
let next = pool.length;

/** Makes the id of the entry with this seq. */
export function makeEntryId(seq: number): string {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const random = pool[next++]!;
  return `${seq.toString(16).padStart(12, "0")}-${random.toString(16).padStart(4, "0")}`;
}
