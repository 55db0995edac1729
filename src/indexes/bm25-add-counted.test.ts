// Bm25Index.addCounted (the bulk load of a format-6 snapshot's token counts) against add of the same tokens.

import { describe, it, expect } from "vitest";
import { Bm25Index } from "./bm25-index.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";

const WORDS = ["the", "peanut", "coffee", "berlin", "i", "live", "in", "tea", "hike", "and", "a", "violin", "nurse", "x1", "x2", "x3", "花生", "过敏"];

/** Distinct tokens in first-occurrence order with their counts, as a format-6 block holds them (ids into a shared term list). */
function counted(tokens: readonly string[], terms: string[], termIds: Map<string, number>, ids: number[], tfs: number[]): [number, number] {
  const start = ids.length;
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const [term, tf] of counts) {
    let id = termIds.get(term);
    if (id === undefined) {
      id = terms.length;
      terms.push(term);
      termIds.set(term, id);
    }
    ids.push(id);
    tfs.push(tf);
  }
  return [start, ids.length];
}

describe("Bm25Index.addCounted", () => {
  // Bounded by runs: each builds two indexes of up to 60 documents, removes some, and compares every query's answer.
  it("leaves the index as add of the same tokens would: same results and scores, before and after removes", () => {
    const random = seededRandom(617);
    for (let run = 0; run < 60; run++) {
      const byTokens = new Bm25Index();
      const byCounts = new Bm25Index();
      const terms: string[] = [];
      const termIds = new Map<string, number>();
      const ids: number[] = [];
      const tfs: number[] = [];
      const docs = 1 + Math.floor(random() * 60);
      for (let doc = 1; doc <= docs; doc++) {
        const length = Math.floor(random() * 14);
        const tokens = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]!);
        byTokens.add(doc * 3, tokens);
        const [start, end] = counted(tokens, terms, termIds, ids, tfs);
        byCounts.addCounted(doc * 3, terms, Uint32Array.from(ids), Uint32Array.from(tfs), start, end);
      }
      const compare = (label: string): void => {
        expect(byCounts.size, label).toBe(byTokens.size);
        for (let q = 0; q < 12; q++) {
          const query = Array.from({ length: 1 + Math.floor(random() * 4) }, () => WORDS[Math.floor(random() * WORDS.length)]!);
          const k = 1 + Math.floor(random() * 8);
          expect(byCounts.search(query, k), `${label}: ${query.join(" ")} k ${k}`).toEqual(byTokens.search(query, k));
        }
      };
      compare(`run ${run}`);
      for (let doc = 1; doc <= docs; doc++) {
        if (random() < 0.4) {
          expect(byCounts.remove(doc * 3)).toBe(byTokens.remove(doc * 3));
        }
      }
      compare(`run ${run} after removes`);
    }
  });

  it("refuses a doc already indexed, a range outside the arrays, a term id with no term and a count below 1, changing nothing", () => {
    const index = new Bm25Index();
    const terms = ["peanut", "coffee"];
    index.addCounted(1, terms, [0, 1], [2, 1], 0, 2);
    throwsWith(() => index.addCounted(1, terms, [0], [1], 0, 1), "INVALID_ARGUMENT", /already indexed/);
    throwsWith(() => index.addCounted(2, terms, [0], [1], 0, 2), "INVALID_ARGUMENT", /not a range/);
    throwsWith(() => index.addCounted(2, terms, [0], [1], 1, 0), "INVALID_ARGUMENT", /not a range/);
    throwsWith(() => index.addCounted(2, terms, [5], [1], 0, 1), "INVALID_ARGUMENT", /not a term/);
    throwsWith(() => index.addCounted(2, terms, [0], [0], 0, 1), "INVALID_ARGUMENT", /not a term/);
    throwsWith(() => index.addCounted(2.5, terms, [0], [1], 0, 1), "INVALID_ARGUMENT");
    expect(index.size).toBe(1);
    expect(index.search(["peanut"], 5).map((h) => h.doc)).toEqual([1]);
  });
});
