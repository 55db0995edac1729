// How recall fuses its two routes: the defaults per embedder, and the rrfK / vectorWeight options.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.ts";
import type { Embedder } from "../../src/types.ts";
import { MoomemError } from "../../src/errors.ts";

const FACTS = ["I'm allergic to peanuts", "My favourite colour is green", "I work as a nurse in the night shift"];

/** A stand-in for a semantic embedder: the HashingEmbedder's vectors under another name. */
function customEmbedder(): Embedder {
  const inner = new HashingEmbedder();
  return { dim: inner.dim, id: "custom-test/256", embed: (texts) => inner.embed(texts) };
}

async function topHit(options: Parameters<typeof MemoryStore.open>[1]): Promise<{ score: number; vectorRank?: number; keywordRank?: number }> {
  const mem = await MemoryStore.open(":memory:", options);
  for (const fact of FACTS) await mem.add("u1", fact);
  const [hit] = await mem.recall("u1", "peanuts allergy");
  await mem.close();
  expect(hit).toBeDefined();
  return hit!;
}

describe("recall fusion", () => {
  it("with the built-in HashingEmbedder: keyword first, vector weight 0.1, k 5", async () => {
    const hit = await topHit(undefined);
    expect([hit.keywordRank, hit.vectorRank]).toEqual([1, 1]);
    expect(hit.score).toBeCloseTo(1 / 6 + 0.1 / 6, 12);
    expect((await topHit({ embedder: new HashingEmbedder({ dim: 64 }) })).score).toBeCloseTo(1 / 6 + 0.1 / 6, 12);
  });

  it("with any other embedder: plain RRF, k 60, equal weights", async () => {
    const hit = await topHit({ embedder: customEmbedder() });
    expect(hit.score).toBeCloseTo(2 / 61, 12);
  });

  it("takes rrfK and vectorWeight from the options", async () => {
    expect((await topHit({ rrfK: 60, vectorWeight: 1 })).score).toBeCloseTo(2 / 61, 12);
    expect((await topHit({ embedder: customEmbedder(), rrfK: 10, vectorWeight: 0.5 })).score).toBeCloseTo(1 / 11 + 0.5 / 11, 12);
    // Weight 0: the vector route still reports its ranks but has no say.
    const silent = await topHit({ vectorWeight: 0 });
    expect(silent.vectorRank).toBe(1);
    expect(silent.score).toBeCloseTo(1 / 6, 12);
  });

  it("rejects a vectorWeight that is not a number in 0..100", async () => {
    for (const vectorWeight of [-0.1, 101, Number.NaN, "1" as unknown as number]) {
      const open = MemoryStore.open(":memory:", { vectorWeight });
      await expect(open).rejects.toBeInstanceOf(MoomemError);
      await expect(MemoryStore.open(":memory:", { vectorWeight })).rejects.toThrow(/vectorWeight/);
    }
  });
});
