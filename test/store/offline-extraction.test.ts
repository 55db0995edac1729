// The offline default through the public API: small talk and questions not stored (AC-03), a move supersedes by key
// (README), no false supersede of look-alikes, Chinese function words match nothing, transcripts in OpenAI / AI SDK shape.

import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend, FixedClock } from "../../src/index.ts";
import { CHIT_CHAT, rejectsWith } from "../helpers/scripted.ts";

/** Twenty lines of Chinese small talk, questions and requests: none is a fact about the user. */
const CHIT_CHAT_ZH: readonly string[] = [
  "你好",
  "早上好！",
  "谢谢你",
  "好的",
  "哈哈哈",
  "今天好累啊哈哈",
  "嗯嗯",
  "再见",
  "没问题",
  "不客气",
  "你是谁？",
  "天气不错",
  "我能吃花生吗？",
  "好的谢谢",
  "拜拜~",
  "明白了",
  "今天吃什么好呢",
  "帮我订一家餐厅",
  "太棒了！",
  "让我想想",
];

describe("offline extraction: only statements are remembered (AC-03)", () => {
  it("20 lines of English small talk and one fact: exactly one memory", async () => {
    const mem = await MemoryStore.open(":memory:");
    expect(CHIT_CHAT).toHaveLength(20);
    for (const line of CHIT_CHAT) expect(await mem.add("u1", line), line).toMatchObject({ extracted: 0, inserted: 0 });
    await mem.add("u1", "I'm allergic to peanuts");
    expect(await mem.list("u1")).toMatchObject([{ content: "I'm allergic to peanuts", kind: "fact", key: "allergy_peanut", status: "active" }]);
    expect(await mem.stats()).toMatchObject({ total: 1, extractorMode: "patterns" });
    await mem.close();
  });

  it("20 lines of Chinese small talk and 我对花生过敏: exactly one memory, also when said in one message", async () => {
    const mem = await MemoryStore.open(":memory:");
    expect(CHIT_CHAT_ZH).toHaveLength(20);
    for (const line of CHIT_CHAT_ZH) expect(await mem.add("u1", line), line).toMatchObject({ extracted: 0, inserted: 0 });
    await mem.add("u1", "我对花生过敏");
    expect(await mem.list("u1")).toMatchObject([{ content: "我对花生过敏", kind: "fact", key: "allergy_花生", status: "active" }]);
    const one = await mem.add("u2", [...CHIT_CHAT_ZH.slice(0, 10), "我对花生过敏", ...CHIT_CHAT_ZH.slice(10)].join("\n"));
    expect(one).toMatchObject({ extracted: 1, inserted: 1 });
    expect((await mem.list("u2")).map((e) => e.content)).toEqual(["我对花生过敏"]);
    await mem.close();
  });

  it("the quick-start loop does not store the user's question, so after a reopen the fact answers it", async () => {
    const backend = new MemoryBackend("quick-start");
    let mem = await MemoryStore.open("quick-start", { backend });
    await mem.add("user-42", [
      { role: "user", content: "I'm allergic to peanuts" },
      { role: "assistant", content: "Noted." },
    ]);
    const asked = await mem.add("user-42", [
      { role: "user", content: "Can I eat peanuts?" },
      { role: "assistant", content: "Better not." },
    ]);
    expect(asked).toMatchObject({ extracted: 0, inserted: 0 });
    await mem.close();
    mem = await MemoryStore.open("quick-start", { backend });
    const hits = await mem.recall("user-42", "Can I eat peanuts?");
    expect(hits.map((h) => h.content)).toEqual(["I'm allergic to peanuts"]);
    await mem.close();
  });
});

describe("offline supersede by slot key (README: Beijing → Shenzhen)", () => {
  for (const [lang, before, after, query] of [
    // The queries name both cities: recall matches words offline ("where do I live?" shares none with "I moved to Shenzhen").
    ["English", "I live in Beijing", "I moved to Shenzhen", "Do I live in Beijing or Shenzhen?"],
    ["Chinese", "我住在北京", "我搬到深圳了", "我住在北京还是深圳？"],
    ["English, then Chinese", "I live in Beijing", "我搬到深圳了", "Shenzhen 深圳 Beijing 北京"],
  ] as const) {
    it(`${lang}: the move supersedes the old city; recall returns only the new one; history shows why`, async () => {
      const clock = new FixedClock(Date.UTC(2025, 0, 1));
      const mem = await MemoryStore.open(":memory:", { clock });
      const first = await mem.add("u1", before);
      clock.advance(60_000);
      const second = await mem.add("u1", after);
      expect(second).toMatchObject({ inserted: 1, superseded: 1 });
      expect(second.facts[0]).toMatchObject({ key: "home_city", replaced: [first.facts[0]!.id] });
      const hits = await mem.recall("u1", query);
      expect(hits.map((h) => h.content)).toEqual([after]);
      const chain = await mem.history("u1", first.facts[0]!.id);
      expect(chain.map((e) => [e.content, e.status])).toEqual([
        [before, "superseded"],
        [after, "active"],
      ]);
      expect(chain[1]!.lifecycle!.conflictReason).toBe('new value for key "home_city"');
      expect((await mem.profile("u1")).slots["home_city"]).toMatchObject({ value: after });
      await mem.close();
    });
  }

  it("things a person has several of coexist; 'no longer' retires one", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("u1", "I'm allergic to peanuts");
    expect(await mem.add("u1", "I'm allergic to cats")).toMatchObject({ superseded: 0 });
    expect(await mem.add("u1", "I speak French. I speak German.")).toMatchObject({ inserted: 2, superseded: 0 });
    const gone = await mem.add("u1", "I'm not allergic to cats anymore");
    expect(gone).toMatchObject({ superseded: 1 });
    expect((await mem.list("u1", { status: "active" })).map((e) => e.content).sort()).toEqual([
      "I speak French.",
      "I speak German.",
      "I'm allergic to peanuts",
      "I'm not allergic to cats anymore",
    ]);
    await mem.close();
  });
});

describe("offline judge: no false supersede without keys", () => {
  it("keeps two numbered orders, two tickets and memories differing in their variables", async () => {
    const mem = await MemoryStore.open(":memory:");
    const pairs = [
      ["My order #1234 shipped today", "My order #5678 shipped today"],
      ["Support ticket 48213 is still open", "Support ticket 48377 is still open"],
      ["我的订单1234已经发货了", "我的订单5678已经发货了"],
    ];
    for (const [a, b] of pairs) {
      await mem.add("u1", a!);
      expect(await mem.add("u1", b!), b).toMatchObject({ inserted: 1, superseded: 0 });
    }
    const foods = ["rice", "beans", "fish", "tea", "cake", "bread"];
    for (let i = 0; i < 120; i++) {
      const summary = await mem.add(`t${i % 3}`, `memory ${i}: I like ${foods[i % 6]} and ${foods[(i + 1) % 6]}, not ${foods[(i + 2) % 6]} (${i})`);
      expect(summary.superseded, `memory ${i}`).toBe(0);
    }
    expect((await mem.stats()).superseded).toBe(0);
    expect((await mem.recall("u1", "order 1234")).map((h) => h.content)[0]).toBe("My order #1234 shipped today");
    await mem.close();
  });
});

describe("Chinese function words match nothing (relevance floor)", () => {
  it("a question sharing only 我 / 能 / 吗 with memories returns only the one it is about, in every mode", async () => {
    const mem = await MemoryStore.open(":memory:");
    for (const text of ["我住在北京", "我喜欢爬山", "我对花生过敏", "I'm allergic to peanuts", "I live in Beijing"]) await mem.add("u1", text);
    for (const mode of ["hybrid", "keyword", "vector"] as const) {
      expect(
        (await mem.recall("u1", "我能吃花生吗？", { mode })).map((h) => h.content),
        mode,
      ).toEqual(["我对花生过敏"]);
      expect(
        (await mem.recall("u1", "Can I eat peanuts?", { mode })).map((h) => h.content),
        mode,
      ).toEqual(["I'm allergic to peanuts"]);
      expect(await mem.recall("u1", "我是谁", { mode }), mode).toEqual([]);
      expect(await mem.recall("u1", "what is it?", { mode }), mode).toEqual([]);
    }
    await mem.close();
  });
});

describe("transcripts in the OpenAI and AI SDK shapes", () => {
  it("reads 'User' and 'human' roles and text content parts; ignores images and tool-only turns", async () => {
    const mem = await MemoryStore.open(":memory:");
    const summary = await mem.add("u1", [
      { role: "system", content: "You are helpful." },
      { role: "User", content: "I live in Berlin" },
      { role: "assistant", content: null },
      {
        role: "human",
        content: [
          { type: "text", text: "I'm allergic to peanuts" },
          { type: "image", image: "data:image/png;base64,AAAA" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "You live in Rome." },
          { type: "tool-call", toolCallId: "1", toolName: "x", input: {} },
        ],
      },
      { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] },
    ]);
    expect(summary).toMatchObject({ extracted: 2, inserted: 2 });
    expect((await mem.list("u1")).map((e) => [e.content, e.key])).toEqual([
      ["I live in Berlin", "home_city"],
      ["I'm allergic to peanuts", "allergy_peanut"],
    ]);
    await mem.close();
  });

  it("says so when no message is from the user, and stores nothing", async () => {
    const mem = await MemoryStore.open(":memory:");
    const summary = await mem.add("u1", [
      { role: "assistant", content: "I live in Berlin" },
      { role: "tool", content: "42" },
    ]);
    expect(summary).toMatchObject({ extracted: 0, inserted: 0, degraded: false });
    expect(summary.nothingExtracted).toMatch(/no message of the transcript is from the user \(roles: assistant, tool\)/);
    expect((await mem.stats()).total).toBe(0);
    await mem.close();
  });

  it("rejects content parts it cannot read, naming the message and the part", async () => {
    const mem = await MemoryStore.open(":memory:");
    const cases: unknown[] = [
      [{ role: "user", content: [{ text: "no type" }] }],
      [{ role: "user", content: [{ type: "text", text: 42 }] }],
      [{ role: "user", content: ["plain string part"] }],
      [{ role: "user", content: 42 }],
      [{ role: "user", content: [{ type: "image", image: "x" }] }],
    ];
    const messages = [
      /message 0 content part 0 needs a string "type"/,
      /content part 0 is of type "text" but its "text" is 42/,
      /content part 0 needs a string "type"/,
      /message 0 needs "content" as a string or an array of parts/,
      /no message of the transcript has text/,
    ];
    for (const [i, input] of cases.entries()) {
      const err = await rejectsWith(mem.add("u1", input as never), "INVALID_ARGUMENT");
      expect(err.message).toMatch(messages[i]!);
    }
    expect((await mem.stats()).total).toBe(0);
    await mem.close();
  });
});
