import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend, RawExtractor, type ExtractedFact, type Extractor } from "../../src/index.ts";
import { rejectsWith } from "../helpers/scripted.ts";

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
    expect(active[0]!.lifecycle!.reextractedFrom).toBeDefined();
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

  it("keeps the entry when the extractor echoes the text: it never supersedes itself", async () => {
    // Fails while `down`, then returns the input unchanged as one fact (what many short-sentence extractors do).
    const echo = new (class implements Extractor {
      readonly mode = "echo";
      down = true;
      extract(_u: string, input: string | readonly { role: string; content: string }[]): Promise<ExtractedFact[]> {
        if (this.down) return Promise.reject(new Error("HTTP 503"));
        return Promise.resolve([{ content: typeof input === "string" ? input : input.map((m) => m.content).join("\n"), kind: "fact" }]);
      }
    })();
    const mem = await MemoryStore.open(":memory:", { extractor: echo });
    await mem.add("u1", "I live in Lisbon");
    echo.down = false;
    expect(await mem.reextract("u1")).toMatchObject({ processed: 1, converted: 1, failed: 0 });
    for (const e of await mem.list("u1")) expect(e.supersededBy).not.toBe(e.id);
    expect((await mem.recall("u1", "where do I live")).map((h) => h.content)).toEqual(["I live in Lisbon"]);
    expect((await mem.profile("u1")).facts.map((f) => f.content)).toEqual(["I live in Lisbon"]);
    const [raw] = await mem.list("u1", { status: "superseded" });
    expect((await mem.history("u1", raw!.id)).map((e) => e.status)).toEqual(["superseded", "active"]);
    await mem.close();
  });

  it("refuses to run without a fact extractor (the raw default would store the same text again)", async () => {
    const backend = new MemoryBackend();
    const extractor = new OutageExtractor();
    const first = await MemoryStore.open("raw-reextract", { backend, extractor });
    await first.add("u1", "I live in Lisbon");
    await first.close();
    const mem = await MemoryStore.open("raw-reextract", { backend, extractor: new RawExtractor() });
    const error = await rejectsWith(mem.reextract("u1"), "INVALID_ARGUMENT");
    expect(error.message).toMatch(/fact extractor/);
    expect((await mem.list("u1")).map((e) => [e.status, e.supersededBy])).toEqual([["unstructured", undefined]]);
    expect((await mem.recall("u1", "Lisbon")).map((h) => h.content)).toEqual(["I live in Lisbon"]);
    await mem.close();
    // The extractor says what it does (verbatim), whatever its class: a host's raw extractor is refused too.
    const hosts = await MemoryStore.open("raw-reextract", { backend, extractor: { mode: "mine", verbatim: true, extract: () => Promise.resolve([]) } });
    expect((await rejectsWith(hosts.reextract("u1"), "INVALID_ARGUMENT")).message).toMatch(/mine, verbatim/);
    await hosts.close();
    await rejectsWith(
      MemoryStore.open(":memory:", { extractor: { mode: "x", verbatim: "yes" as never, extract: () => Promise.resolve([]) } }),
      "INVALID_ARGUMENT",
    );
  });
});
