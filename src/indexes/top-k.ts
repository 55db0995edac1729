// Top-k selection with a bounded binary heap, and the argument checks both indexes share.

import { invalidArgument } from "../errors.ts";

/** One search result: the document (an entry's store-wide `seq`) and its score. */
export interface ScoredDoc {
  doc: number;
  score: number;
}

/**
 * Keeps the `k` best of a stream of (doc, score) pairs in O(n log k): higher score is better, and on
 * equal scores the larger doc (the newer entry) is better. The heap root is the worst kept pair.
 */
export class TopK {
  readonly #k: number;
  readonly #docs: Float64Array;
  readonly #scores: Float64Array;
  #size = 0;

  constructor(k: number) {
    this.#k = k;
    this.#docs = new Float64Array(k);
    this.#scores = new Float64Array(k);
  }

  /** Considers one pair. */
  offer(doc: number, score: number): void {
    if (this.#size < this.#k) {
      this.#siftUp(this.#size++, doc, score);
      return;
    }
    if (this.#k === 0) return;
    const rootScore = this.#scores[0] as number;
    if (score < rootScore || (score === rootScore && doc < (this.#docs[0] as number))) return;
    this.#siftDown(0, doc, score, this.#size);
  }

  /** The score a pair needs to be considered at all (a pair scoring it is kept only if its doc is larger): −Infinity until k are kept. */
  get floor(): number {
    return this.#size < this.#k || this.#k === 0 ? (this.#k === 0 ? Infinity : -Infinity) : (this.#scores[0] as number);
  }

  /** The kept pairs, best first; empties the heap. */
  drain(): ScoredDoc[] {
    const out = new Array<ScoredDoc>(this.#size);
    while (this.#size > 0) {
      const last = --this.#size;
      out[last] = { doc: this.#docs[0] as number, score: this.#scores[0] as number };
      if (last > 0) this.#siftDown(0, this.#docs[last] as number, this.#scores[last] as number, last);
    }
    return out;
  }

  #siftUp(hole: number, doc: number, score: number): void {
    const docs = this.#docs;
    const scores = this.#scores;
    while (hole > 0) {
      const parent = (hole - 1) >> 1;
      const parentScore = scores[parent] as number;
      const parentDoc = docs[parent] as number;
      if (!isWorse(score, doc, parentScore, parentDoc)) break;
      docs[hole] = parentDoc;
      scores[hole] = parentScore;
      hole = parent;
    }
    docs[hole] = doc;
    scores[hole] = score;
  }

  /** Places (doc, score) at `hole` and sinks it within the first `size` slots. */
  #siftDown(hole: number, doc: number, score: number, size: number): void {
    const docs = this.#docs;
    const scores = this.#scores;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size && isWorse(scores[right] as number, docs[right] as number, scores[child] as number, docs[child] as number)) {
        child = right;
      }
      const childScore = scores[child] as number;
      const childDoc = docs[child] as number;
      if (!isWorse(childScore, childDoc, score, doc)) break;
      docs[hole] = childDoc;
      scores[hole] = childScore;
      hole = child;
    }
    docs[hole] = doc;
    scores[hole] = score;
  }
}

function isWorse(scoreA: number, docA: number, scoreB: number, docB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && docA < docB);
}

/** Throws unless `doc` can be an entry's `seq`: a non-negative safe integer. */
export function checkDoc(where: string, doc: number): void {
  if (!Number.isSafeInteger(doc) || doc < 0) {
    throw invalidArgument(`${where}: doc must be a non-negative safe integer (an entry's seq), got ${String(doc)}.`);
  }
}

/** Throws unless `k` is a non-negative integer. */
export function checkK(where: string, k: number): void {
  if (!Number.isInteger(k) || k < 0) {
    throw invalidArgument(`${where}: k must be a non-negative integer, got ${String(k)}.`);
  }
}
