// A small cache of a pure function's recent results, bounded by forgetting the oldest key.

/**
 * Remembers up to `capacity` results of a pure function of a string. The store hands the same text to
 * the tokenizer several times per add (embedding, conflict candidates, indexing, judging); a memo
 * makes every call after the first a lookup. Eviction is first-in first-out (Map keeps insertion
 * order), which suits that access pattern and costs nothing on a hit.
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
  readonly #values = new Map<string, V>();

  constructor(capacity: number, compute: (key: string) => V) {
    this.#capacity = capacity;
    this.#compute = compute;
  }

  get(key: string): V {
    let value = this.#values.get(key);
    if (value === undefined) {
      value = this.#compute(key);
      if (this.#values.size >= this.#capacity) this.#values.delete(this.#values.keys().next().value as string);
      this.#values.set(key, value);
    }
    return value;
  }
}
