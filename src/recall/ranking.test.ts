// Tests of recall's ranking helpers: fusion defaults per embedder kind, and neighbouring-turn context.

import { describe, it, expect } from "vitest";
import { addNeighborContext, embedderKind, fusionDefaults, NEIGHBOR_WINDOW_MS } from "./ranking.ts";
import type { FusedDoc } from "../fusion/rrf.ts";
import type { EntryRecord } from "../types.ts";

function entry(seq: number, createdAt = 0): EntryRecord {
  return {
    id: `m${seq}`,
    userId: "u",
    content: `memory ${seq}`,
    kind: "unstructured",
    status: "active",
    createdAt,
    updatedAt: createdAt,
    seq,
    metadata: {},
    lifecycle: {},
    embedding: null,
  };
}

function fused(...pairs: Array<[number, number]>): FusedDoc[] {
  return pairs.map(([doc, score]) => ({ doc, score, ranks: [undefined, 1] }));
}

describe("fusionDefaults", () => {
  it("lexical: vector weight 0.1, floor 0.15; semantic (and unknown): weight 1, floor 0; both z-score fusion with neighbour context", () => {
    expect(embedderKind({ dim: 1, embed: async () => [] })).toBe("semantic");
    expect(embedderKind({ dim: 1, kind: "lexical", embed: async () => [] })).toBe("lexical");
    expect(fusionDefaults("lexical")).toEqual({ fusion: "zscore", rrfK: 5, vectorWeight: 0.1, minSimilarity: 0.15, neighborWeight: 0.25 });
    expect(fusionDefaults("semantic")).toEqual({ fusion: "zscore", rrfK: 60, vectorWeight: 1, minSimilarity: 0, neighborWeight: 0.25 });
  });
});

describe("addNeighborContext", () => {
  const entries = [1, 2, 3, 4, 5, 6].map((seq) => entry(seq));

  it("adds weight × the best positive score of the entries just before and after, among the candidates", () => {
    const out = addNeighborContext(fused([3, 4], [4, 1], [6, 1.5], [1, -2]), entries, 0.25);
    expect(out.map((f) => [f.doc, f.score])).toEqual([
      [3, 4 + 0.25 * 1], // neighbours 2 (not a candidate) and 4 (1)
      [4, 1 + 0.25 * 4], // neighbours 3 (4) and 5 (not a candidate)
      [6, 1.5], // neighbour 5 is not a candidate
      [1, -2], // neighbour 2 is not a candidate; a negative score is never passed on
    ]);
    // Scores come from the input, not from boosted neighbours: the order of the list does not matter.
    const reversed = addNeighborContext(fused([1, -2], [6, 1.5], [4, 1], [3, 4]), entries, 0.25);
    expect(reversed.map((f) => [f.doc, f.score]).reverse()).toEqual(out.map((f) => [f.doc, f.score]));
  });

  it("never passes on a negative score, and weight 0 changes nothing", () => {
    expect(addNeighborContext(fused([2, 1], [3, -5]), entries, 0.25).map((f) => f.score)).toEqual([1, -5 + 0.25 * 1]);
    expect(addNeighborContext(fused([2, 1], [3, 3]), entries, 0)).toEqual(fused([2, 1], [3, 3]));
  });

  it("ignores neighbours observed more than the window apart (another conversation)", () => {
    const spread = [entry(1, 0), entry(2, NEIGHBOR_WINDOW_MS), entry(3, 2 * NEIGHBOR_WINDOW_MS + 1)];
    const out = addNeighborContext(fused([1, 2], [2, 2], [3, 2]), spread, 0.5);
    expect(out.map((f) => f.score)).toEqual([3, 3, 2]);
  });

  it("leaves a doc it cannot find in the entries as it is", () => {
    expect(addNeighborContext(fused([99, 1], [1, 5]), entries, 0.5).map((f) => f.score)).toEqual([1, 5]);
  });
});

describe("addNeighborContext: finding entries", () => {
  it("finds neighbours in lists with gaps in their seqs (other users' writes, deleted entries), as a plain scan would", () => {
    // Seqs 1, 2, 10, 11, 12, 40, 41, 300, …: interpolation lands far off, the fallback search must still find them.
    const seqs = [1, 2, 10, 11, 12, 40, 41, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310, 311, 900];
    const list = seqs.map((seq) => entry(seq));
    for (let i = 0; i < seqs.length; i++) {
      const scores = seqs.map((seq, j): [number, number] => [seq, j === i ? 0 : 1]);
      // Every entry is a candidate with score 1 except entry i (score 0): i gains weight × 1 iff it has a neighbour.
      const out = addNeighborContext(fused(...scores), list, 0.5);
      expect(out[i]!.score).toBe(0.5);
    }
    // A seq that is not in the list (between two that are) is left as it is.
    expect(addNeighborContext(fused([11, 1], [20, 0]), list, 0.5).map((f) => f.score)).toEqual([1, 0]);
  });
});
