// Okapi BM25 over one user's entries: an inverted index updated in place on add and remove.

import { invalidArgument } from "../errors.ts";
import { checkDoc, checkK, TopK, type ScoredDoc } from "./top-k.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";

export type { ScoredDoc } from "./top-k.ts";

/**
 * BM25 tuning.
 *
 * @example
 * ```ts
 * new Bm25Index({ k1: 1.5, b: 0.75 });
 * ```
 */
export interface Bm25Params {
  /**
   * Term-frequency saturation: how much the 2nd, 3rd… occurrence of a term still adds. Default 0.9; ≥ 0.
   * 0.9 and b 0.4 are Anserini's defaults for short passages, taken from the literature rather than
   * tuned here; on LoCoMo dev they beat the textbook 1.2 / 0.75 by 1.8 AnyHit@5 points (docs/eval/tuning.md):
   * memories are short, so a long one is seldom long because it rambles.
   */
  k1?: number;
  /** Length normalisation: 0 ignores document length, 1 divides fully by it relative to the average. Default 0.4; 0..1. */
  b?: number;
  /**
   * Tokens left out of documents and queries (they neither match nor count towards a document's length).
   * Default: English function words ({@link ENGLISH_STOP_WORDS}); pass an empty set to index every token.
   * On LoCoMo dev, leaving them out lifted keyword-only AnyHit@5 from 53.4 to 59.2 % (docs/eval/tuning.md):
   * idf alone does not silence words like "did" or "her", which are rare enough in chat to score.
   */
  stopWords?: ReadonlySet<string>;
}

/** The documents holding one term, as two parallel arrays (slot, term frequency). */
interface Postings {
  readonly term: string;
  slots: number[];
  tfs: number[];
}

/** What one document contributes: its postings lists and its position in each. */
interface DocRecord {
  readonly doc: number;
  readonly length: number;
  readonly postings: Postings[];
  /** `positions[i]` = index of this document within `postings[i]`. */
  readonly positions: number[];
}

/**
 * BM25 keyword index for one user shard.
 *
 * Scoring is Okapi BM25 with Lucene's non-negative idf, `ln(1 + (N − df + 0.5) / (df + 0.5))`.
 * A query term counts once however often the query repeats it (a chatty query such as
 * "peanut? peanut!" should not outweigh its other words). Stop words (see {@link Bm25Params.stopWords})
 * are left out of documents and queries alike.
 *
 * Documents sit in dense slots, so a search adds scores into one reusable array instead of a map;
 * removing a document moves the last one into its slot and patches only the postings involved.
 *
 * @example
 * ```ts
 * const index = new Bm25Index();
 * index.add(1, tokenize("I'm allergic to peanuts"));
 * index.search(tokenize("peanuts"), 10); // [{ doc: 1, score: 0.29 }]
 * ```
 */
export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  readonly #stopWords: ReadonlySet<string>;
  #terms = new Map<string, Postings>();
  #records: DocRecord[] = [];
  /** slot → document length, kept apart from the records so the scoring loop reads a flat array */
  #lengths: number[] = [];
  #slotOf = new Map<number, number>();
  #totalLength = 0;
  #scores = new Float64Array(0);

  constructor(params?: Bm25Params) {
    const k1 = params?.k1 ?? 0.9;
    const b = params?.b ?? 0.4;
    if (typeof k1 !== "number" || !Number.isFinite(k1) || k1 < 0) {
      throw invalidArgument(`Bm25Index: k1 must be a finite number ≥ 0 (typically 0.9–2), got ${String(k1)}.`);
    }
    if (typeof b !== "number" || !(b >= 0 && b <= 1)) {
      throw invalidArgument(`Bm25Index: b must be a number in 0..1 (typically 0.3–0.75), got ${String(b)}.`);
    }
    const stopWords = params?.stopWords ?? ENGLISH_STOP_WORDS;
    if (!(stopWords instanceof Set)) {
      throw invalidArgument(`Bm25Index: stopWords must be a Set of tokens, got ${typeof stopWords}.`);
    }
    this.k1 = k1;
    this.b = b;
    this.#stopWords = stopWords;
  }

  /** Number of documents held (including ones with no tokens). */
  get size(): number {
    return this.#records.length;
  }

  /** True when `doc` is indexed. */
  has(doc: number): boolean {
    return this.#slotOf.has(doc);
  }

  /** Indexes `doc` with its tokens (repeats count). `doc` must be new to this index. */
  add(doc: number, tokens: readonly string[]): void {
    checkDoc("Bm25Index.add", doc);
    if (this.#slotOf.has(doc)) {
      throw invalidArgument(`Bm25Index.add: doc ${doc} is already indexed; remove it first to re-index it.`);
    }
    if (!Array.isArray(tokens)) {
      throw invalidArgument(`Bm25Index.add: tokens of doc ${doc} must be an array of strings, got ${typeof tokens}.`);
    }
    const counts = new Map<string, number>();
    let length = 0;
    for (const token of tokens) {
      if (typeof token !== "string") {
        throw invalidArgument(`Bm25Index.add: tokens of doc ${doc} must be strings, got a ${typeof token}.`);
      }
      if (this.#stopWords.has(token)) continue;
      counts.set(token, (counts.get(token) ?? 0) + 1);
      length++;
    }
    const slot = this.#records.length;
    const record: DocRecord = { doc, length, postings: [], positions: [] };
    for (const [term, tf] of counts) {
      let postings = this.#terms.get(term);
      if (postings === undefined) {
        postings = { term, slots: [], tfs: [] };
        this.#terms.set(term, postings);
      }
      record.postings.push(postings);
      record.positions.push(postings.slots.length);
      postings.slots.push(slot);
      postings.tfs.push(tf);
    }
    this.#records.push(record);
    this.#lengths.push(length);
    this.#slotOf.set(doc, slot);
    this.#totalLength += length;
  }

  /** Removes `doc`; false when it was not there. Cost grows with the document's distinct terms, not the index. */
  remove(doc: number): boolean {
    const slot = this.#slotOf.get(doc);
    if (slot === undefined) return false;
    const record = this.#records[slot] as DocRecord;
    for (let i = 0; i < record.postings.length; i++) {
      const postings = record.postings[i] as Postings;
      const at = record.positions[i] as number;
      const lastAt = postings.slots.length - 1;
      if (at !== lastAt) {
        // Fill the hole with the list's last posting and tell its document where it went.
        const movedSlot = postings.slots[lastAt] as number;
        postings.slots[at] = movedSlot;
        postings.tfs[at] = postings.tfs[lastAt] as number;
        const moved = this.#records[movedSlot] as DocRecord;
        moved.positions[moved.postings.indexOf(postings)] = at;
      }
      postings.slots.pop();
      postings.tfs.pop();
      if (postings.slots.length === 0) this.#terms.delete(postings.term);
    }
    const lastSlot = this.#records.length - 1;
    if (slot !== lastSlot) {
      // Move the last document into the freed slot: rewrite its slot number in each of its postings.
      const moved = this.#records[lastSlot] as DocRecord;
      for (let i = 0; i < moved.postings.length; i++) {
        (moved.postings[i] as Postings).slots[moved.positions[i] as number] = slot;
      }
      this.#records[slot] = moved;
      this.#lengths[slot] = this.#lengths[lastSlot] as number;
      this.#slotOf.set(moved.doc, slot);
    }
    this.#records.pop();
    this.#lengths.pop();
    this.#slotOf.delete(doc);
    this.#totalLength -= record.length;
    return true;
  }

  /**
   * The `k` best documents for the query tokens by BM25, best first. Only documents sharing at least
   * one term (score > 0) are returned; equal scores put the larger (newer) doc first.
   */
  search(queryTokens: readonly string[], k: number): ScoredDoc[] {
    if (!Array.isArray(queryTokens)) {
      throw invalidArgument(`Bm25Index.search: queryTokens must be an array of strings, got ${typeof queryTokens}.`);
    }
    checkK("Bm25Index.search", k);
    const n = this.#records.length;
    if (k === 0 || n === 0 || this.#totalLength === 0) return [];
    if (this.#scores.length < n) this.#scores = new Float64Array(Math.max(n, 2 * this.#scores.length));
    const scores = this.#scores;
    const lengths = this.#lengths;
    const k1 = this.k1;
    const b = this.b;
    const avgLength = this.#totalLength / n;
    const touched: number[] = [];
    const seen = new Set<string>();
    for (const term of queryTokens) {
      if (seen.has(term) || this.#stopWords.has(term)) continue;
      seen.add(term);
      const postings = this.#terms.get(term);
      if (postings === undefined) continue;
      const { slots, tfs } = postings;
      const df = slots.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const weight = idf * (k1 + 1);
      for (let i = 0; i < df; i++) {
        const slot = slots[i] as number;
        const tf = tfs[i] as number;
        const lengthNorm = 1 - b + (b * (lengths[slot] as number)) / avgLength;
        // Every contribution is > 0 (idf > 0, tf ≥ 1), so a zero score marks a slot not yet touched.
        if (scores[slot] === 0) touched.push(slot);
        // Written as weight · tf/(tf + …) so that with k1 = 0 the fraction is exactly 1 and equal docs tie exactly.
        scores[slot] = (scores[slot] as number) + weight * (tf / (tf + k1 * lengthNorm));
      }
    }
    const top = new TopK(Math.min(k, touched.length));
    const records = this.#records;
    for (const slot of touched) {
      top.offer((records[slot] as DocRecord).doc, scores[slot] as number);
      scores[slot] = 0;
    }
    return top.drain();
  }
}
