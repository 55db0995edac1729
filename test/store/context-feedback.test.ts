import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock, RawExtractor } from "../../src/index.ts";
import type { ChatMessage } from "../../src/index.ts";
import { LlmExtractor } from "../../src/adapters/openai/llm-extractor.ts";
import { formatContext } from "../../src/context/format-context.ts";
import { MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_OPEN } from "../../src/text/context-markers.ts";

const NOW = Date.UTC(2024, 2, 10);
const DAY = 86_400_000;

/** A store that already knows two things, and the block an agent would put into its next prompt. */
async function primed(options: Parameters<typeof MemoryStore.open>[1] = {}): Promise<{ mem: MemoryStore; block: string }> {
  const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(NOW), ...options });
  await mem.add("u1", "I'm allergic to peanuts", { observedAt: NOW - 40 * DAY });
  await mem.add("u1", "I moved to Shenzhen", { observedAt: NOW - 2 * DAY });
  const hits = await mem.recall("u1", "what should I cook, I'm in Shenzhen and allergic to peanuts", { topK: 5 });
  expect(hits).toHaveLength(2);
  const block = formatContext(hits, { now: NOW });
  expect(block).toContain("peanuts");
  return { mem, block };
}

const contents = async (mem: MemoryStore): Promise<string[]> => (await mem.list("u1")).map((e) => e.content);

describe("a formatContext block fed back into add is not learned again", () => {
  it("RawExtractor: a prompt string keeps only what the user said", async () => {
    const { mem, block } = await primed({ extractor: new RawExtractor() });
    const summary = await mem.add("u1", `${block}\n\nI got a puppy named Biscuit`);
    expect(summary.facts.map((f) => f.content)).toEqual(["I got a puppy named Biscuit"]);
    expect(await contents(mem)).toEqual(["I'm allergic to peanuts", "I moved to Shenzhen", "I got a puppy named Biscuit"]);
    await mem.close();
  });

  it("RawExtractor: a transcript with the block in the system and the user message", async () => {
    const { mem, block } = await primed({ extractor: new RawExtractor() });
    const transcript: ChatMessage[] = [
      { role: "system", content: `You are a cook.\n${block}` },
      { role: "user", content: `${block}\nWhat can I cook tonight? I bought tofu.` },
      { role: "assistant", content: "How about mapo tofu without peanuts?" },
    ];
    const summary = await mem.add("u1", transcript);
    expect(summary.facts.map((f) => f.content)).toEqual(["What can I cook tonight? I bought tofu."]);
    for (const c of await contents(mem)) expect(c).not.toContain(MEMORY_CONTEXT_OPEN);
    await mem.close();
  });

  it("the default extractor: the block is removed, and the user's question is not kept either", async () => {
    const { mem, block } = await primed();
    const summary = await mem.add("u1", [
      { role: "system", content: `You are a cook.\n${block}` },
      { role: "user", content: `${block}\nWhat can I cook tonight? I bought tofu.` },
      { role: "assistant", content: "How about mapo tofu without peanuts?" },
    ]);
    expect(summary.facts.map((f) => f.content)).toEqual(["I bought tofu."]);
    expect(await contents(mem)).toEqual(["I'm allergic to peanuts", "I moved to Shenzhen", "I bought tofu."]);
    await mem.close();
  });

  it("RawExtractor: an input that is only the block stores nothing", async () => {
    const { mem, block } = await primed({ extractor: new RawExtractor() });
    const summary = await mem.add("u1", block);
    expect(summary).toMatchObject({ extracted: 0, inserted: 0, duplicates: 0 });
    expect(await mem.add("u1", [{ role: "user", content: block }])).toMatchObject({ extracted: 0, inserted: 0 });
    expect(await contents(mem)).toEqual(["I'm allergic to peanuts", "I moved to Shenzhen"]);
    await mem.close();
  });

  it("LlmExtractor: the model never sees the block, so it cannot re-extract the injected memories", async () => {
    const seen: ChatMessage[][] = [];
    // A scripted model that "extracts" peanuts, Shenzhen and puppies from the conversation it is shown
    // (the last message; the system prompt's own examples mention peanuts and Shenzhen too).
    const chat = (messages: ChatMessage[]): Promise<string> => {
      seen.push(messages);
      const text = messages.at(-1)!.content;
      const facts: Array<{ content: string; kind: string; key: string }> = [];
      if (/allergic to peanuts/.test(text)) facts.push({ content: "User is allergic to peanuts", kind: "fact", key: "allergy" });
      if (/Shenzhen/.test(text)) facts.push({ content: "User lives in Shenzhen", kind: "fact", key: "home_city" });
      if (/puppy/.test(text)) facts.push({ content: "User has a puppy named Biscuit", kind: "fact", key: "pet" });
      return Promise.resolve(JSON.stringify({ facts }));
    };
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(NOW), extractor: new LlmExtractor({ chat }) });
    await mem.add("u1", "I'm allergic to peanuts and I just moved to Shenzhen");
    expect(await contents(mem)).toEqual(["User is allergic to peanuts", "User lives in Shenzhen"]);
    const block = formatContext(await mem.recall("u1", "peanuts Shenzhen", { topK: 5 }), { now: NOW });
    expect(block).toContain("User lives in Shenzhen");

    seen.length = 0;
    const summary = await mem.add("u1", [
      { role: "system", content: block },
      { role: "user", content: `${block}\nI got a puppy named Biscuit` },
    ]);
    expect(summary.facts.map((f) => [f.content, f.action])).toEqual([["User has a puppy named Biscuit", "inserted"]]);
    expect(seen).toHaveLength(1);
    const shown = seen[0]!.at(-1)!.content;
    expect(shown).toContain("puppy");
    expect(shown).not.toContain(MEMORY_CONTEXT_OPEN);
    expect(shown).not.toContain(MEMORY_CONTEXT_CLOSE);
    expect(shown).not.toContain("User lives in Shenzhen");
    expect(shown).not.toContain("peanuts");

    // Only the block: no model call at all, nothing stored.
    seen.length = 0;
    expect(await mem.add("u1", block)).toMatchObject({ extracted: 0, inserted: 0 });
    expect(seen).toHaveLength(0);
    expect(await contents(mem)).toEqual(["User is allergic to peanuts", "User lives in Shenzhen", "User has a puppy named Biscuit"]);
    await mem.close();
  });

  it("a failed LLM extraction of a transcript keeps the user's words, not the block", async () => {
    const { block } = await primed();
    const mem = await MemoryStore.open(":memory:", { extractor: new LlmExtractor({ chat: () => Promise.reject(new Error("HTTP 503")) }) });
    const summary = await mem.add("u1", [
      { role: "system", content: block },
      { role: "user", content: `${block}\nI got a puppy named Biscuit` },
    ]);
    expect(summary.degraded).toBe(true);
    expect(await contents(mem)).toEqual(["user: I got a puppy named Biscuit"]);
    await mem.close();
  });
});
