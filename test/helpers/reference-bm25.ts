// A reference BM25 for the index's tests: the plain algorithm, scores to compare bit for bit.

import { ENGLISH_STOP_WORDS } from "../../src/text/stop-words.ts";

/**
 * BM25 as the index computed it before pruning and before its typed-array layout, over postings rebuilt
 * from the current documents (added one at a time, in the order given): every postings list of every
 * distinct query term, contributions added in query order with the index's float operations
 * (weight · tf/(tf + k1 · lengthNorm)). The index, pruned or not, built by single adds or in bulk,
 * must return exactly this: the same docs, order and bit-equal scores (src/indexes/bm25-index.test.ts,
 * bm25-layout.test.ts).
 */
export function referenceSearch(
  docs: ReadonlyMap<number, readonly string[]>,
  k1 = 0.9,
  b = 0.4,
  stopWords: ReadonlySet<string> = ENGLISH_STOP_WORDS,
): (query: readonly string[], k: number) => Array<{ doc: number; score: number }> {
  const terms = new Map<string, { docs: number[]; tfs: number[] }>();
  const lengths = new Map<number, number>();
  let totalLength = 0;
  for (const [doc, tokens] of docs) {
    const counts = new Map<string, number>();
    let length = 0;
    for (const token of tokens) {
      if (stopWords.has(token)) continue;
      counts.set(token, (counts.get(token) ?? 0) + 1);
      length++;
    }
    for (const [term, tf] of counts) {
      let postings = terms.get(term);
      if (postings === undefined) terms.set(term, (postings = { docs: [], tfs: [] }));
      postings.docs.push(doc);
      postings.tfs.push(tf);
    }
    lengths.set(doc, length);
    totalLength += length;
  }
  const n = docs.size;
  const avgLength = totalLength / n;
  return (query, k) => {
    if (k === 0 || n === 0 || totalLength === 0) return [];
    const scores = new Map<number, number>();
    const seen = new Set<string>();
    for (const term of query) {
      if (seen.has(term) || stopWords.has(term)) continue;
      seen.add(term);
      const postings = terms.get(term);
      if (postings === undefined) continue;
      const df = postings.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const weight = idf * (k1 + 1);
      for (let i = 0; i < df; i++) {
        const doc = postings.docs[i] as number;
        const tf = postings.tfs[i] as number;
        const lengthNorm = 1 - b + (b * (lengths.get(doc) as number)) / avgLength;
        scores.set(doc, (scores.get(doc) ?? 0) + weight * (tf / (tf + k1 * lengthNorm)));
      }
    }
    const results = [...scores].map(([doc, score]) => ({ doc, score }));
    results.sort((x, y) => y.score - x.score || y.doc - x.doc);
    return results.slice(0, k);
  };
}
