import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock, MoomemError, type Embedder } from "../../src/index.ts";
import { rejectsWith } from "../helpers/scripted.ts";

describe("add and recall", () => {
  it("stores a memory and recalls it by meaning and keywords", async () => {
    const mem = await MemoryStore.open(":memory:");
    const summary = await mem.add("user-42", "I'm allergic to peanuts");
    expect(summary).toMatchObject({ extracted: 1, inserted: 1, duplicates: 0, superseded: 0, degraded: false });
    expect(summary.facts[0]).toMatchObject({ content: "I'm allergic to peanuts", kind: "fact", key: "allergy_peanut", action: "inserted" });
    await mem.add("user-42", "My favourite colour is green");
    await mem.add("user-42", "I work as a nurse in the night shift");
    const hits = await mem.recall("user-42", "peanuts allergy", { topK: 5 });
    expect(hits[0]!.content).toBe("I'm allergic to peanuts");
    expect(hits[0]!.id).toBe(summary.facts[0]!.id);
    expect(hits[0]!.keywordRank).toBe(1);
    expect(hits[0]!.vectorRank).toBe(1);
    // The default HashingEmbedder's fusion: standardised scores, keyword weight 1, vector weight 0.1 (docs/eval/tuning.md).
    const [keyword] = await mem.recall("user-42", "peanuts allergy", { mode: "keyword" });
    const [vector] = await mem.recall("user-42", "peanuts allergy", { mode: "vector" });
    expect(hits[0]!.score).toBeCloseTo(keyword!.score + 0.1 * vector!.score, 10);
    expect(hits[0]).not.toHaveProperty("embedding");
    await mem.close();
  });

  it("recalls Chinese text by partial words", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("u1", "我对花生过敏");
    await mem.add("u1", "我住在北京");
    const hits = await mem.recall("u1", "花生", { mode: "keyword" });
    expect(hits.map((h) => h.content)).toEqual(["我对花生过敏"]);
    await mem.close();
  });

  it("returns [] when nothing matches and for a user with no memories", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("u1", "I like tea");
    await mem.add("u1", "My sister is called Anna");
    for (const mode of ["keyword", "vector", "hybrid"] as const) {
      expect(await mem.recall("u1", "zebra xylophone", { mode })).toEqual([]);
      expect(await mem.recall("u1", "quantum chromodynamics", { mode })).toEqual([]);
    }
    expect(await mem.recall("nobody", "tea")).toEqual([]);
    await mem.close();
  });

  it("respects topK and the three modes", async () => {
    const mem = await MemoryStore.open(":memory:");
    const plants = ["tomatoes", "basil", "peppers", "roses", "tulips", "carrots", "onions", "lettuce", "garlic", "mint", "sage", "beans"];
    for (const plant of plants) await mem.add("u1", `I am gardening ${plant} this spring`);
    expect(await mem.recall("u1", "gardening tomatoes", { topK: 3 })).toHaveLength(3);
    const vector = await mem.recall("u1", "gardening tomatoes", { mode: "vector", topK: 4 });
    expect(vector.every((h) => h.keywordRank === undefined && h.vectorRank !== undefined)).toBe(true);
    const keyword = await mem.recall("u1", "gardening tomatoes", { mode: "keyword", topK: 4 });
    expect(keyword.every((h) => h.vectorRank === undefined && h.keywordRank !== undefined)).toBe(true);
    await mem.close();
  });

  it("breaks score ties newer first", async () => {
    const clock = new FixedClock(1000);
    const mem = await MemoryStore.open(":memory:", { clock });
    const a = await mem.add("u1", "bicycle in the hallway");
    clock.advance(10);
    const b = await mem.add("u1", "bicycle on the balcony");
    expect(a.facts[0]!.action).toBe("inserted");
    expect(b.facts[0]!.action).toBe("inserted");
    const hits = await mem.recall("u1", "bicycle", { mode: "keyword" });
    expect(hits.map((h) => h.id)).toEqual([b.facts[0]!.id, a.facts[0]!.id]);
    await mem.close();
  });

  it("skips duplicates after normalisation and returns the existing id", async () => {
    const mem = await MemoryStore.open(":memory:");
    const first = await mem.add("u1", "I live in Berlin.");
    const again = await mem.add("u1", "  i LIVE in   berlin ");
    expect(again).toMatchObject({ inserted: 0, duplicates: 1 });
    expect(again.facts[0]).toMatchObject({ action: "duplicate", id: first.facts[0]!.id });
    const fullWidth = await mem.add("u1", "Ｉ live in Berlin！");
    expect(fullWidth.duplicates).toBe(1);
    expect((await mem.list("u1")).length).toBe(1);
    // the same text for another user is not a duplicate
    expect((await mem.add("u2", "I live in Berlin.")).inserted).toBe(1);
    await mem.close();
  });

  it("truncates over-long content and says so in its lifecycle", async () => {
    const mem = await MemoryStore.open(":memory:", { maxContentChars: 100 });
    const long = "word ".repeat(100);
    const s = await mem.add("u1", long);
    const [entry] = await mem.list("u1");
    expect(entry!.content.length).toBe(100);
    expect(entry!.lifecycle!.truncated).toEqual({ originalChars: long.trim().length });
    expect(s.inserted).toBe(1);
    await mem.close();
  });

  it("keeps add metadata and accepts a chat transcript", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add(
      "u1",
      [
        { role: "user", content: "I just adopted a cat named Miso" },
        { role: "assistant", content: "Congratulations! Cats are great." },
      ],
      { metadata: { channel: "chat", tags: ["pets"] } },
    );
    const [entry] = await mem.list("u1");
    expect(entry!.content).toBe("I just adopted a cat named Miso");
    expect(entry!.metadata).toEqual({ channel: "chat", tags: ["pets"] });
    expect(entry!.lifecycle).toMatchObject({ extractor: "patterns" });
    await mem.close();
  });

  it("uses observedAt as createdAt and filters recall by time, kind and metadata", async () => {
    const clock = new FixedClock(Date.UTC(2026, 5, 1));
    const mem = await MemoryStore.open(":memory:", { clock });
    await mem.add("u1", "went hiking in the alps", { observedAt: new Date(Date.UTC(2024, 0, 1)), metadata: { agent: "travel" } });
    await mem.add("u1", "went hiking in norway", { metadata: { agent: "travel" } });
    await mem.add("u1", "hiking boots size 44", { metadata: { agent: "shop" } });
    const old = await mem.list("u1", { until: Date.UTC(2025, 0, 1) });
    expect(old.map((e) => e.content)).toEqual(["went hiking in the alps"]);
    expect(old[0]!.createdAt).toBe(Date.UTC(2024, 0, 1));
    const recent = await mem.recall("u1", "hiking", { since: Date.UTC(2026, 0, 1), metadata: { agent: "travel" } });
    expect(recent.map((h) => h.content)).toEqual(["went hiking in norway"]);
    expect((await mem.recall("u1", "hiking", { kind: "event" })).map((h) => h.content).sort()).toEqual(["went hiking in norway", "went hiking in the alps"]);
    expect(await mem.recall("u1", "hiking", { kind: "preference" })).toEqual([]);
    await mem.close();
  });

  it("falls back to keywords when the query cannot be embedded, and stores without vectors when facts cannot", async () => {
    let broken = false;
    const embedder: Embedder = {
      dim: 4,
      id: "test/4",
      embed: (texts) => (broken ? Promise.reject(new Error("embedding service down")) : Promise.resolve(texts.map(() => Float32Array.of(1, 0, 0, 0)))),
    };
    const mem = await MemoryStore.open(":memory:", { embedder });
    await mem.add("u1", "the red kite flies high");
    broken = true;
    const s = await mem.add("u1", "a blue kite in the rain");
    expect(s.degraded).toBe(true);
    const entries = await mem.list("u1");
    expect(entries[1]!.lifecycle!.embeddingDegraded).toMatch(/embedding service down/);
    const hits = await mem.recall("u1", "kite");
    expect(hits).toHaveLength(2);
    expect(hits.every((h) => h.degraded === true && h.vectorRank === undefined)).toBe(true);
    await rejectsWith(mem.recall("u1", "kite", { mode: "vector" }), "EMBEDDING_FAILURE");
    await mem.close();
  });

  it("treats an embedder returning NaN or the wrong size as a failure", async () => {
    const embedder: Embedder = { dim: 3, id: "nan/3", embed: (texts) => Promise.resolve(texts.map(() => Float32Array.of(NaN, 0, 0))) };
    const mem = await MemoryStore.open(":memory:", { embedder });
    const s = await mem.add("u1", "hello world");
    expect(s.degraded).toBe(true);
    const [entry] = await mem.list("u1");
    expect(String(entry!.lifecycle!.embeddingDegraded)).toMatch(/NaN|finite/i);
    expect((await mem.recall("u1", "hello"))[0]!.degraded).toBe(true);
    await mem.close();
  });

  it("rejects bad arguments with clear codes and stays usable", async () => {
    const mem = await MemoryStore.open(":memory:");
    await rejectsWith(mem.add("u1", "   "), "INVALID_ARGUMENT");
    await rejectsWith(mem.add("u1", 42 as unknown as string), "INVALID_ARGUMENT");
    await rejectsWith(mem.add("u1", []), "INVALID_ARGUMENT");
    await rejectsWith(mem.add("u1", "x", { metadata: { when: new Date() } as never }), "INVALID_ARGUMENT");
    await rejectsWith(mem.add("u1", "x", { metdata: {} } as never), "INVALID_ARGUMENT");
    await rejectsWith(mem.recall("u1", ""), "INVALID_ARGUMENT");
    await rejectsWith(mem.recall("u1", "x", { topK: 0 }), "INVALID_ARGUMENT");
    await rejectsWith(mem.recall("u1", "x", { topK: 101 }), "INVALID_ARGUMENT");
    await rejectsWith(mem.recall("u1", "x", { topK: 2.5 }), "INVALID_ARGUMENT");
    await rejectsWith(mem.recall("u1", "x", { mode: "fuzzy" as never }), "INVALID_ARGUMENT");
    await rejectsWith(mem.list("u1", { status: "gone" as never }), "INVALID_ARGUMENT");
    const err = await rejectsWith(mem.recall("u1", "x", { topK: 500 }), "INVALID_ARGUMENT");
    expect(err.message).toMatch(/topK.*1 to 100.*500/);
    expect(err).toBeInstanceOf(MoomemError);
    await expect(MemoryStore.open("")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(MemoryStore.open(":memory:", { sync: "sometimes" as never })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(MemoryStore.open(":memory:", { embedder: {} as never })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    // still works
    await mem.add("u1", "still fine");
    expect(await mem.recall("u1", "fine")).toHaveLength(1);
    await mem.close();
  });
});

describe("recall ties", () => {
  it("ranks the later observed memory first when scores tie, whatever the write order", async () => {
    const clock = new FixedClock(Date.UTC(2026, 0, 1));
    const mem = await MemoryStore.open(":memory:", { clock });
    const recent = await mem.add("u1", "bicycle in the hallway");
    const old = await mem.add("u1", "bicycle on the balcony", { observedAt: Date.UTC(2020, 0, 1) });
    const hits = await mem.recall("u1", "bicycle", { mode: "keyword" });
    expect(hits.map((h) => h.id)).toEqual([recent.facts[0]!.id, old.facts[0]!.id]);
    await mem.close();
  });
});
