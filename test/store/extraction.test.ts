import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/index.ts";
import { CHIT_CHAT, FlakyExtractor, RuleExtractor, ScriptedJudge, rejectsWith } from "../helpers/scripted.ts";

const chitChat = CHIT_CHAT;

describe("extraction (AC-03, AC-05)", () => {
  it("keeps only the fact among 20 chit-chat lines (AC-03)", async () => {
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor([{ pattern: /allergic/i, key: "allergy" }]) });
    for (const line of chitChat) {
      const s = await mem.add("u1", line);
      expect(s).toMatchObject({ extracted: 0, inserted: 0 });
    }
    await mem.add("u1", "I'm allergic to peanuts");
    const all = await mem.list("u1");
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ content: "I'm allergic to peanuts", kind: "fact", key: "allergy", status: "active" });
    expect((await mem.stats()).total).toBe(1);
    await mem.close();
  });

  it("degrades to an unstructured entry when the extractor fails, and recall still finds it (AC-05)", async () => {
    const extractor = new FlakyExtractor();
    const mem = await MemoryStore.open(":memory:", { extractor });
    const s = await mem.add("u1", "my sister's wedding is in June in Lisbon");
    expect(s).toMatchObject({ degraded: true, inserted: 1 });
    const [entry] = await mem.list("u1");
    expect(entry).toMatchObject({ status: "unstructured", kind: "unstructured" });
    expect(entry!.lifecycle!.extractionDegraded).toMatch(/503/);
    expect((await mem.recall("u1", "wedding Lisbon"))[0]!.id).toBe(entry!.id);
    expect((await mem.stats()).unstructured).toBe(1);
    await mem.close();
  });

  it("refuses the third consecutive failure and stores nothing of it; a success resets the count", async () => {
    const extractor = new FlakyExtractor();
    const mem = await MemoryStore.open(":memory:", { extractor });
    await mem.add("u1", "first failing add");
    await mem.add("u1", "second failing add");
    const err = await rejectsWith(mem.add("u1", "third failing add"), "EXTRACTION_FAILURE");
    expect(err.message).toMatch(/3 adds in a row/);
    expect(err.message).toMatch(/NOT stored/);
    expect((await mem.list("u1")).map((e) => e.content)).toEqual(["first failing add", "second failing add"]);
    extractor.failing = false;
    expect((await mem.add("u1", "works again")).degraded).toBe(false);
    extractor.failing = true;
    expect((await mem.add("u1", "failing once more")).degraded).toBe(true);
    await mem.close();
  });

  it("a transcript that fails extraction is stored whole, with roles", async () => {
    const mem = await MemoryStore.open(":memory:", { extractor: new FlakyExtractor() });
    await mem.add("u1", [
      { role: "user", content: "book me a table for two" },
      { role: "assistant", content: "Which evening?" },
    ]);
    const [entry] = await mem.list("u1");
    expect(entry!.content).toBe("user: book me a table for two\nassistant: Which evening?");
    await mem.close();
  });

  it("judges offline when extraction already used its retry (two model calls per add at most)", async () => {
    const extractor = new FlakyExtractor();
    extractor.failing = false;
    extractor.retried = true;
    const judge = new ScriptedJudge(() => "replace");
    const mem = await MemoryStore.open(":memory:", { extractor, judge });
    await mem.add("u1", "I drive a red car");
    await mem.add("u1", "I drive a blue car now");
    expect(judge.calls).toBe(0);
    const active = await mem.list("u1", { status: "active" });
    expect(active.at(-1)!.lifecycle!.judge).toBe("similarity-fallback");
    expect(active.at(-1)!.lifecycle!.judgeFallback).toMatch(/retry/);
    await mem.close();
  });

  it("treats malformed extractor output as a failure", async () => {
    const extractor = { mode: "bad", extract: () => Promise.resolve([{ content: "x", kind: "opinion" }] as never) };
    const mem = await MemoryStore.open(":memory:", { extractor });
    const s = await mem.add("u1", "something");
    expect(s.degraded).toBe(true);
    expect((await mem.list("u1"))[0]!.lifecycle!.extractionDegraded).toMatch(/kind/);
    await mem.close();
  });
});

describe("injected context is never re-learned", () => {
  it("a degraded add keeps the user's words but not the memory block", async () => {
    const mem = await MemoryStore.open(":memory:", { extractor: new FlakyExtractor() });
    const prompt = "<moomem-context>\n- 2 days ago: I'm allergic to peanuts\n</moomem-context>\nplease book the sushi place";
    await mem.add("u1", prompt);
    const [entry] = await mem.list("u1");
    expect(entry!.content).toBe("please book the sushi place");
    expect((await mem.add("u1", "<moomem-context>\n- old memory\n</moomem-context>")).inserted).toBe(0);
    expect(await mem.list("u1")).toHaveLength(1);
    await rejectsWith(mem.recall("u1", "x", { since: 10, until: 5 }), "INVALID_ARGUMENT");
    await mem.close();
  });
});
