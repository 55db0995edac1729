// A small cache of a pure function's recent results, bounded by forgetting what was not used lately.

/** Keys longer than this (in UTF-16 units) are not remembered; the default content limit is 8,192. */
export const MAX_KEY_LENGTH = 8192;

/**
 * Remembers recent results of a pure function of a string: at least the last `capacity` keys used,
 * at most twice that. The store hands the same text to the tokenizer several times per add
 * (embedding, conflict candidates, indexing, judging), and words repeat; a memo makes every call after
 * the first a lookup.
 *
 * Two generations instead of a strict LRU: lookups go to the current map, then to the previous one
 * (and a hit there moves the key forward); when the current map is full it becomes the previous one.
 * Every operation is O(1). (Evicting a Map's oldest key one at a time is not: V8 leaves deleted
 * entries in place, so finding the first live key walks over all of them.)
 *
 * @example
 * ```ts
 * const lengths = new BoundedMemo<number>(2, (text) => text.length);
 * lengths.get("peanut"); // 6, computed once
 * ```
 */
export class BoundedMemo<V> {
  readonly #capacity: number;
  readonly #compute: (key: string) => V;
  #current = new Map<string, V>();
  #previous = new Map<string, V>();

  constructor(capacity: number, compute: (key: string) => V) {
    this.#capacity = capacity;
    this.#compute = compute;
  }

  get(key: string): V {
    // A huge text (a pasted document as a query) is computed but not kept: the memo must never hold much memory.
    if (key.length > MAX_KEY_LENGTH) return this.#compute(key);
    let value = this.#current.get(key);
    if (value !== undefined) return value;
    value = this.#previous.get(key) ?? this.#compute(key);
    if (this.#current.size >= this.#capacity) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, value);
    return value;
  }
}
