import { describe, it, expect } from "vitest";
import { MemoryStore, type ExtractedFact, type Extractor } from "../../src/index.ts";

/** Fails while `down`; then keeps sentences mentioning a city or an allergy, with keys. */
class OutageExtractor implements Extractor {
  readonly mode = "outage";
  down = true;
  extract(_u: string, input: string | readonly { role: string; content: string }[]): Promise<ExtractedFact[]> {
    if (this.down) return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:11434"));
    const text = typeof input === "string" ? input : input.map((m) => m.content).join("\n");
    const facts: ExtractedFact[] = [];
    for (const part of text.split(/[.;!]\s*/)) {
      if (/live in|moved to/i.test(part)) facts.push({ content: part.trim(), kind: "fact", key: "home_city" });
      if (/allergic/i.test(part)) facts.push({ content: part.trim(), kind: "fact", key: "allergy" });
    }
    return Promise.resolve(facts);
  }
}

describe("reextract", () => {
  it("turns unstructured entries into facts once the extractor is back", async () => {
    const extractor = new OutageExtractor();
    const mem = await MemoryStore.open(":memory:", { extractor });
    extractor.down = false;
    await mem.add("u1", "I live in Beijing");
    extractor.down = true;
    await mem.add("u1", "hello! I moved to Shenzhen; I'm allergic to shrimp");
    await mem.add("u1", "just chatting about the weather");
    extractor.down = false;
    await mem.add("u2", "I'm allergic to cats"); // a success resets the consecutive-failure count
    extractor.down = true;
    await mem.add("u2", "I live in Paris");
    expect((await mem.stats()).unstructured).toBe(3);

    extractor.down = false;
    const s = await mem.reextract("u1");
    expect(s).toMatchObject({ processed: 2, converted: 2, failed: 0 });
    expect(s.facts.map((f) => f.content)).toEqual(["I moved to Shenzhen", "I'm allergic to shrimp"]);
    const active = await mem.list("u1", { status: "active" });
    expect(active.map((e) => e.content)).toEqual(["I moved to Shenzhen", "I'm allergic to shrimp"]);
    expect(active[0]!.metadata["reextracted_from"]).toBeDefined();
    // the moved city superseded Beijing, as a fresh add would
    expect((await mem.list("u1", { status: "superseded" })).map((e) => e.content)).toContain("I live in Beijing");
    // small talk holds no fact: soft-deleted, restorable
    expect((await mem.list("u1", { status: "deleted" })).map((e) => e.content)).toEqual(["just chatting about the weather"]);
    // u2 untouched
    expect((await mem.list("u2", { status: "unstructured" })).map((e) => e.content)).toEqual(["I live in Paris"]);
    expect((await mem.reextract()).converted).toBe(1);
    expect((await mem.stats()).unstructured).toBe(0);
    await mem.close();
  });

  it("leaves entries alone when extraction fails again", async () => {
    const extractor = new OutageExtractor();
    const mem = await MemoryStore.open(":memory:", { extractor });
    await mem.add("u1", "I moved to Rome");
    expect(await mem.reextract("u1")).toMatchObject({ processed: 1, converted: 0, failed: 1 });
    expect((await mem.list("u1"))[0]!.status).toBe("unstructured");
    await mem.close();
  });
});
