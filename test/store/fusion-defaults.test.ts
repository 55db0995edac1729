// How recall fuses its two routes: the defaults per embedder kind, and the fusion / rrfK / vectorWeight options.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.ts";
import { OpenAIEmbedder } from "../../src/adapters/openai/openai-embedder.ts";
import { RawExtractor } from "../../src/ingest/raw-extractor.ts";
import type { Embedder, RecallHit } from "../../src/types.ts";
import { MoomemError } from "../../src/errors.ts";

const FACTS = ["I'm allergic to peanuts", "My favourite colour is green", "I work as a nurse in the night shift"];

/** The HashingEmbedder's vectors under another name, saying `kind` as given (or nothing). */
function customEmbedder(kind?: "lexical" | "semantic"): Embedder {
  const inner = new HashingEmbedder();
  const embedder: { dim: number; id: string; embed: Embedder["embed"]; kind?: "lexical" | "semantic" } = {
    dim: inner.dim,
    id: "custom-test/256",
    embed: (texts) => inner.embed(texts),
  };
  if (kind !== undefined) embedder.kind = kind;
  return embedder;
}

type Options = Parameters<typeof MemoryStore.open>[1];

async function recallAll(options: Options, query = "peanuts allergy", facts = FACTS): Promise<Record<"hybrid" | "vector" | "keyword", RecallHit[]>> {
  const mem = await MemoryStore.open(":memory:", options);
  for (const fact of facts) await mem.add("u1", fact);
  const out = {
    hybrid: await mem.recall("u1", query, { topK: 10 }),
    vector: await mem.recall("u1", query, { topK: 10, mode: "vector" }),
    keyword: await mem.recall("u1", query, { topK: 10, mode: "keyword" }),
  };
  await mem.close();
  return out;
}

/** The top hybrid hit with neighbouring-turn context off, so its score is the fusion's alone. */
async function topHit(options: Options): Promise<RecallHit> {
  const { hybrid } = await recallAll({ ...options, neighborWeight: 0 });
  expect(hybrid[0]).toBeDefined();
  return hybrid[0]!;
}

describe("recall fusion", () => {
  it("kinds: HashingEmbedder is lexical, an embedder that does not say is semantic", () => {
    expect(new HashingEmbedder().kind).toBe("lexical");
    expect(new OpenAIEmbedder({ baseURL: "http://127.0.0.1:9", apiKey: "k", model: "m", dim: 8 }).kind).toBe("semantic");
    expect(customEmbedder().kind).toBeUndefined();
  });

  it("default (z-score): a hit's score is the keyword route's standardised score plus vectorWeight × the vector route's", async () => {
    for (const [options, weight] of [
      [undefined, 0.1],
      [{ embedder: new HashingEmbedder({ dim: 64 }) }, 0.1],
      [{ embedder: customEmbedder("lexical") }, 0.1],
      [{ embedder: customEmbedder() }, 1],
      [{ embedder: customEmbedder("semantic") }, 1],
      [{ embedder: customEmbedder(), vectorWeight: 0.5 }, 0.5],
    ] as Array<[Options, number]>) {
      // Neighbouring-turn context off: this checks the fusion alone.
      const { hybrid, vector, keyword } = await recallAll({ ...options, neighborWeight: 0 });
      const [top] = hybrid;
      expect([top?.keywordRank, top?.vectorRank]).toEqual([1, 1]);
      expect(top?.content).toBe("I'm allergic to peanuts");
      // Each single-route mode reports that route's standardised score alone (unweighted).
      expect(top!.score).toBeCloseTo(keyword[0]!.score + weight * vector[0]!.score, 10);
      expect(keyword[0]!.score).toBeGreaterThan(0);
      expect(vector[0]!.score).toBeGreaterThan(0);
    }
  });

  it("the kind decides the defaults, not the class: a custom lexical embedder ranks and scores as the built-in one", async () => {
    const builtIn = await recallAll(undefined, "green nurse");
    const custom = await recallAll({ embedder: customEmbedder("lexical") }, "green nurse");
    expect(custom.hybrid.map((h) => [h.content, h.score])).toEqual(builtIn.hybrid.map((h) => [h.content, h.score]));
    const semantic = await recallAll({ embedder: customEmbedder() }, "green nurse");
    expect(semantic.hybrid.map((h) => h.score)).not.toEqual(builtIn.hybrid.map((h) => h.score));
    // The lexical floor (0.15) drops vector hits a semantic embedder keeps (floor 0).
    const weak = await recallAll(undefined, "shift colour");
    const weakSemantic = await recallAll({ embedder: customEmbedder() }, "shift colour");
    expect(weakSemantic.vector.length).toBeGreaterThanOrEqual(weak.vector.length);
  });

  it('fusion "rrf": Σ weight / (k + rank), k 5 and weight 0.1 for lexical, k 60 and weight 1 for semantic', async () => {
    expect((await topHit({ fusion: "rrf" })).score).toBeCloseTo(1 / 6 + 0.1 / 6, 12);
    expect((await topHit({ fusion: "rrf", embedder: customEmbedder() })).score).toBeCloseTo(2 / 61, 12);
    // rrfK alone means RRF.
    expect((await topHit({ rrfK: 60, vectorWeight: 1 })).score).toBeCloseTo(2 / 61, 12);
    expect((await topHit({ embedder: customEmbedder(), rrfK: 10, vectorWeight: 0.5 })).score).toBeCloseTo(1 / 11 + 0.5 / 11, 12);
  });

  it("vectorWeight 0: the vector route still reports its ranks but has no say", async () => {
    for (const fusion of ["zscore", "rrf"] as const) {
      const { hybrid, keyword } = await recallAll({ vectorWeight: 0, fusion, neighborWeight: 0 });
      expect(hybrid[0]!.vectorRank).toBe(1);
      expect(hybrid[0]!.score).toBeCloseTo(keyword[0]!.score, 12);
    }
  });

  it("a vector route that cannot tell memories apart leaves the keyword order as it is (RRF k 60 did not)", async () => {
    // Every text gets the same vector: all cosines are equal, so the vector route knows nothing.
    const flat: Embedder = { dim: 4, id: "flat/4", embed: (texts) => Promise.resolve(texts.map(() => new Float32Array([0.5, 0.5, 0.5, 0.5]))) };
    // The best keyword match is the oldest and the runner-up the newest: ranks by recency would swap them.
    const facts = ["I'm allergic to peanuts, a severe peanut allergy", "peanut oil", "the weather is nice", "we went hiking", "peanut butter on toast"];
    // Equal vectors would make the default judge see every new fact as a changed old one.
    const { hybrid, keyword } = await recallAll({ embedder: flat, judge: { judge: () => Promise.resolve([]) } }, "peanut allergy", facts);
    expect(keyword.length).toBe(3);
    expect(keyword[0]!.content).toBe(facts[0]);
    expect(hybrid.slice(0, 3).map((h) => h.content)).toEqual(keyword.map((h) => h.content));
    expect(hybrid.slice(0, 3).map((h) => h.score)).toEqual(keyword.map((h) => h.score));
  });

  it("neighbouring-turn context: the answer beside a matching question outranks an equal match elsewhere; neighborWeight 0 turns it off", async () => {
    const chat = [
      "Melanie: what did you paint for the art show?",
      "Caroline: a sunset over the lake; the show went well",
      "Jon: we watched a movie",
      "Jon: the show on TV was boring",
    ];
    const query = "what did you paint for the art show";
    // Chat turns stored as said (the default extractor would drop the question, as it should in a real agent).
    const raw = new RawExtractor();
    const on = await recallAll({ extractor: raw }, query, chat);
    const off = await recallAll({ extractor: raw, neighborWeight: 0 }, query, chat);
    for (const mode of ["keyword", "hybrid"] as const) {
      expect(on[mode][0]!.content).toBe(chat[0]);
      expect(off[mode][0]!.content).toBe(chat[0]);
      // Without context the two "show" turns tie and the newer wins; with it, the answer beside the question wins.
      expect(off[mode].slice(1, 3).map((h) => h.content)).toEqual([chat[3], chat[1]]);
      expect(on[mode].slice(1, 3).map((h) => h.content)).toEqual([chat[1], chat[3]]);
    }
    // Turns written hours apart are not one conversation: no context.
    const mem = await MemoryStore.open(":memory:", { extractor: raw });
    const t0 = Date.UTC(2024, 0, 1);
    for (const [i, text] of chat.entries()) await mem.add("u1", text, { observedAt: t0 + i * 3 * 3_600_000 });
    const apart = await mem.recall("u1", query, { mode: "keyword" });
    expect(apart.slice(1, 3).map((h) => h.content)).toEqual([chat[3], chat[1]]);
    await mem.close();
  });

  it("rejects a bad fusion, rrfK with zscore, a bad kind, a vectorWeight not in 0..100, a neighborWeight not in 0..10", async () => {
    const bad: Array<[Options, RegExp]> = [
      [{ fusion: "mean" as "rrf" }, /fusion/],
      [{ fusion: "zscore", rrfK: 60 }, /rrfK applies to fusion "rrf"/],
      [{ embedder: { ...customEmbedder(), kind: "dense" as "semantic" } }, /embedder\.kind/],
      ...[-0.1, 101, Number.NaN, "1" as unknown as number].map((vectorWeight): [Options, RegExp] => [{ vectorWeight }, /vectorWeight/]),
      ...[-1, 11, Number.POSITIVE_INFINITY, null as unknown as number].map((neighborWeight): [Options, RegExp] => [{ neighborWeight }, /neighborWeight/]),
    ];
    for (const [options, message] of bad) {
      await expect(MemoryStore.open(":memory:", options)).rejects.toBeInstanceOf(MoomemError);
      await expect(MemoryStore.open(":memory:", options)).rejects.toThrow(message);
    }
  });
});
