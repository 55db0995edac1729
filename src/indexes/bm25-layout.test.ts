// The typed-array BM25 layout (bm25-layout.ts) against the algorithm it replaced: same answers, scores bit for bit.

import { describe, it, expect } from "vitest";
import { Bm25Index } from "./bm25-index.ts";
import { Bm25Layout } from "./bm25-layout.ts";
import { ENGLISH_STOP_WORDS } from "../text/stop-words.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";
import { referenceSearch } from "../../test/helpers/reference-bm25.ts";

/** A document as a snapshot section keeps it: (term id, count) pairs against a term list that grows as documents come. */
class CountedBlock {
  terms: string[] = [];
  readonly #ids = new Map<string, number>();
  ids: number[] = [];
  tfs: number[] = [];

  /** Appends `tokens` counted, in first-occurrence order; with `twice`, one term's count is split over two pairs (add must sum them). */
  push(tokens: readonly string[], twice: boolean): [number, number] {
    const start = this.ids.length;
    const counts = new Map<string, number>();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let id = this.#ids.get(term);
      if (id === undefined) {
        id = this.terms.length;
        this.terms.push(term);
        this.#ids.set(term, id);
      }
      if (twice && tf >= 2) {
        this.ids.push(id, id);
        this.tfs.push(1, tf - 1);
        twice = false;
      } else {
        this.ids.push(id);
        this.tfs.push(tf);
      }
    }
    return [start, this.ids.length];
  }
}

/** Zipf-like vocabulary draws, with stop words among the common ones, so that some terms are in most documents. */
function vocabulary(random: () => number, size: number): () => string {
  const words = ["the", "and", "i", "peanut", "coffee", "berlin", "tea"];
  for (let i = words.length; i < size; i++) words.push(`w${i}`);
  return () => words[Math.min(size - 1, Math.floor(size ** random()) - 1)] as string;
}

describe("Bm25Index in typed arrays (Bm25Layout)", () => {
  // Bounded by runs. Each run drives one index through random adds (by tokens, and by counts in staged
  // batches against one or several term lists), removes (of staged documents too) and searches (pruned
  // and not), and checks every answer against the old algorithm over the documents held.
  it("answers as the old layout did, scores bit for bit, over random adds, counted batches, removes and searches", () => {
    const random = seededRandom(1717);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let run = 0; run < 40; run++) {
      const params = run % 4 === 3 ? { k1: 1.2, b: 0.75 } : { k1: 0.9, b: 0.4 };
      const stopWords = run % 5 === 4 ? new Set<string>() : ENGLISH_STOP_WORDS;
      const index = new Bm25Index({ ...params, stopWords });
      const word = vocabulary(random, 20 + pick(400));
      const docs = new Map<number, readonly string[]>();
      let block = new CountedBlock();
      let next = 1;
      const target = 50 + pick(run % 8 === 0 ? 1200 : 250);
      const check = (label: string): void => {
        expect(index.size, label).toBe(docs.size);
        const old = referenceSearch(docs, params.k1, params.b, stopWords);
        for (let q = 0; q < 6; q++) {
          const query = Array.from({ length: 1 + pick(6) }, word);
          const k = random() < 0.5 ? 1 + pick(5) : 1 + pick(docs.size + 3);
          expect(index.search(query, k), `${label}: "${query.join(" ")}" k ${k}`).toEqual(old(query, k));
        }
      };
      for (let step = 0; step < 6 * target; step++) {
        // Adds (a batch brings 20 documents on average) while below the target size, removes above it.
        const r = docs.size < target ? random() : 0.5 + 0.5 * random();
        if (r < 0.3) {
          // A batch by counts, staged until the next search or remove.
          if (random() < 0.2) block = new CountedBlock();
          const batch = Array.from({ length: 1 + pick(40) }, () => Array.from({ length: pick(16) }, word));
          const ranges = batch.map((tokens) => block.push(tokens, random() < 0.1));
          // As a snapshot's block gives them (typed), or as plain arrays.
          const ids = random() < 0.5 ? Uint32Array.from(block.ids) : block.ids;
          const tfs = random() < 0.5 ? Uint32Array.from(block.tfs) : block.tfs;
          batch.forEach((tokens, i) => {
            const [start, end] = ranges[i] as [number, number];
            index.addCounted(next, block.terms, ids, tfs, start, end);
            docs.set(next++, tokens);
          });
        } else if (r < 0.5) {
          const tokens = Array.from({ length: pick(16) }, word);
          index.add(next, tokens);
          docs.set(next++, tokens);
        } else if (r < 0.75 && docs.size > 0) {
          const held = [...docs.keys()];
          const doc = held[pick(held.length)] as number;
          // A held document is known (staged or written, before and after the map of slots is made); a removed one is not.
          expect(index.has(doc)).toBe(true);
          expect(index.remove(doc)).toBe(true);
          docs.delete(doc);
          expect(index.has(doc)).toBe(false);
          expect(index.remove(doc)).toBe(false);
          const other = held[pick(held.length)] as number;
          expect(index.has(other)).toBe(docs.has(other));
        } else if (r < 0.97) {
          expect(index.remove(next + 5)).toBe(false);
        } else {
          check(`run ${run} step ${step}`);
        }
      }
      check(`run ${run} end`);
      // Remove most, then all: the index must empty cleanly and take documents again.
      for (const doc of [...docs.keys()]) {
        if (random() < 0.9) {
          index.remove(doc);
          docs.delete(doc);
        }
      }
      check(`run ${run} after removing most`);
      for (const doc of [...docs.keys()]) index.remove(doc);
      docs.clear();
      expect(index.search([word(), word()], 5)).toEqual([]);
      index.add(next, ["peanut", "coffee"]);
      docs.set(next, ["peanut", "coffee"]);
      check(`run ${run} refilled`);
    }
  });

  it("builds a large counted batch as single adds would, pruned searches included", () => {
    const random = seededRandom(4242);
    const word = vocabulary(random, 3000);
    const block = new CountedBlock();
    const bulk = new Bm25Index();
    const single = new Bm25Index();
    const docs = new Map<number, readonly string[]>();
    for (let doc = 1; doc <= 5000; doc++) {
      const tokens = Array.from({ length: 3 + Math.floor(random() * 12) }, word);
      const [start, end] = block.push(tokens, false);
      bulk.addCounted(doc, block.terms, block.ids, block.tfs, start, end);
      single.add(doc, tokens);
      if (doc % 7 === 0) single.search(["peanut"], 1); // single's postings are written a document at a time
      docs.set(doc, tokens);
    }
    const old = referenceSearch(docs, 0.9, 0.4, ENGLISH_STOP_WORDS);
    for (let q = 0; q < 40; q++) {
      const query = Array.from({ length: 2 + Math.floor(random() * 8) }, word);
      const k = 1 + Math.floor(random() * 20);
      const expected = old(query, k);
      expect(bulk.search(query, k), query.join(" ")).toEqual(expected);
      expect(single.search(query, k), query.join(" ")).toEqual(expected);
    }
  });

  it("gives dead space back: the pools shrink after most documents are removed", () => {
    const layout = new Bm25Layout();
    for (let doc = 0; doc < 4000; doc++) {
      const slot = layout.open(doc);
      for (let i = 0; i < 8; i++) layout.count(slot, layout.term(`t${(doc * 7 + i * 13) % 900}`), 1 + (i % 3));
      layout.close(slot, 12);
      if (doc % 50 === 0) layout.flush();
    }
    layout.flush();
    const full = layout.byteLength;
    for (let doc = 0; doc < 3900; doc++) {
      layout.remove(layout.slotOf(doc) as number);
    }
    expect(layout.size).toBe(100);
    // The per-slot and per-term arrays keep their size; the pools (most of the bytes) are compacted.
    expect(layout.pool.length + layout.docPool.length).toBeLessThan(8 * 100 * 8 * 2);
    expect(layout.byteLength).toBeLessThan(full / 2);
  });

  // Bounded by runs. Two layouts take the same documents, one by stage (a document per call, as addCounted
  // feeds it) and one by open / count / close, with flushes and removes between, and must hold the same
  // arrays: postings in the same order, the same docPool, stats and document numbers.
  it("stages a document as open, count per pair and close would, to the same arrays", () => {
    const random = seededRandom(2027);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let run = 0; run < 30; run++) {
      const byStage = new Bm25Layout();
      const byCount = new Bm25Layout();
      const vocabulary = 5 + pick(300);
      const held: number[] = [];
      let next = 0;
      const ts = new Int32Array(64);
      const tfs = new Int32Array(64);
      for (let step = 0; step < 400; step++) {
        const r = random();
        if (r < 0.75) {
          // Pairs may name a term twice (its counts are then summed), and terms are made as they come.
          const pairs = pick(20);
          let length = 0;
          for (let i = 0; i < pairs; i++) {
            const name = `t${pick(vocabulary)}`;
            const t = byCount.term(name);
            expect(byStage.term(name)).toBe(t);
            ts[i] = t;
            tfs[i] = 1 + pick(4);
            length += tfs[i] as number;
          }
          const doc = next++;
          const slot = byCount.open(doc);
          for (let i = 0; i < pairs; i++) byCount.count(slot, ts[i] as number, tfs[i] as number);
          byCount.close(slot, length);
          expect(byStage.stage(doc, ts, tfs, pairs, length)).toBe(slot);
          held.push(doc);
        } else if (r < 0.9 && held.length > 0) {
          const doc = held.splice(pick(held.length), 1)[0] as number;
          for (const layout of [byStage, byCount]) {
            layout.flush();
            layout.remove(layout.slotOf(doc) as number);
          }
        } else {
          byStage.flush();
          byCount.flush();
        }
      }
      byStage.flush();
      byCount.flush();
      const label = `run ${run}`;
      expect(byStage.size, label).toBe(byCount.size);
      expect(byStage.termCount, label).toBe(byCount.termCount);
      expect(byStage.names, label).toEqual(byCount.names);
      for (const key of ["pool", "docOf", "info", "docStart", "docTerms", "start", "df", "room", "maxTf", "minRatio"] as const) {
        expect(byStage[key], `${label}: ${key}`).toEqual(byCount[key]);
      }
      // The docPools differ only in the room they grew to: stage makes room for a document's pairs at once.
      const runs = (layout: Bm25Layout): Int32Array[] =>
        Array.from({ length: layout.size }, (_, slot) =>
          layout.docPool.slice(2 * (layout.docStart[slot] as number), 2 * ((layout.docStart[slot] as number) + (layout.docTerms[slot] as number))),
        );
      expect(runs(byStage), `${label}: docPool`).toEqual(runs(byCount));
      for (const doc of held) expect(byStage.slotOf(doc), label).toBe(byCount.slotOf(doc));
    }
  });
});
