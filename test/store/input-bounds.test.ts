// Bounded work for every input: the query limit, huge contents, truncation that is reported, empty-looking text.

import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock, RawExtractor, type Extractor, type Metadata } from "../../src/index.ts";
import { MAX_CONFLICT_IDS } from "../../src/state/lifecycle.ts";
import { MAX_CONTENT_CHARS, MAX_QUERY_CHARS, MAX_TRANSCRIPT_MESSAGES, isBlankText } from "../../src/validation/arguments.ts";
import { ScriptedJudge, rejectsWith } from "../helpers/scripted.ts";
import { storeState } from "../helpers/store-state.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

/** A guard against a hang, not a speed check: `npm run bench:hostile` measures how fast. */
const HUGE_INPUT_TIMEOUT = 300_000;
const MI = 1 << 20;

function cjk(units: number, seed = 1): string {
  const random = seededRandom(seed);
  let text = "";
  while (text.length < units) text += String.fromCodePoint(0x4e00 + Math.floor(random() * 20_000));
  return text;
}

async function openSeeded(options: { maxContentChars?: number; extractor?: Extractor } = {}): Promise<MemoryStore> {
  const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(Date.UTC(2026, 0, 1)), ...options });
  await mem.add("u", "I'm allergic to peanuts");
  await mem.add("u", "我对花生过敏");
  return mem;
}

describe("recall: the query limit", () => {
  it(
    "returns for a 1 MB query: INVALID_ARGUMENT naming the limit, nothing searched",
    async () => {
      const mem = await openSeeded();
      for (const query of [cjk(MI), "x".repeat(MI), "👩‍💻".repeat(MI / 5)]) {
        const err = await rejectsWith(mem.recall("u", query), "INVALID_ARGUMENT");
        expect(err.message).toContain(`the limit is ${MAX_QUERY_CHARS}`);
        expect(err.message).toContain(`${query.length} characters`);
      }
      await mem.close();
    },
    HUGE_INPUT_TIMEOUT,
  );

  it("searches a query of exactly the limit, and rejects one character more", async () => {
    const mem = await openSeeded();
    const atLimit = ("花生 peanuts " + cjk(MAX_QUERY_CHARS)).slice(0, MAX_QUERY_CHARS);
    expect(atLimit.length).toBe(MAX_QUERY_CHARS);
    const hits = await mem.recall("u", atLimit, { mode: "keyword" });
    expect(hits.map((h) => h.content)).toContain("我对花生过敏");
    await rejectsWith(mem.recall("u", atLimit + "x"), "INVALID_ARGUMENT");
    await mem.close();
  });

  it("treats a query of only white space, NUL or zero-width characters as empty", async () => {
    const mem = await openSeeded();
    for (const query of ["", "   ", "\u0000", "\u200b\u200c\u200d\ufeff\u2060", "\u3000\t\n", "\u00ad\u034f", "\u2800"]) {
      const err = await rejectsWith(mem.recall("u", query), "INVALID_ARGUMENT");
      expect(err.message).toContain("empty");
    }
    await mem.close();
  });
});

describe("add: long content", () => {
  it("reports truncation per fact (content cut to maxContentChars, originalChars the length before), not as degraded", async () => {
    const mem = await openSeeded();
    const text = "My notes: " + "peanut butter and jelly ".repeat(500) + "the end";
    const summary = await mem.add("u", text);
    expect(summary.degraded).toBe(false);
    expect(summary.facts).toHaveLength(1);
    const fact = summary.facts[0]!;
    expect(fact.truncated).toEqual({ originalChars: text.length });
    expect(fact.content).toBe(text.slice(0, 8192));
    const [entry] = (await mem.list("u")).filter((e) => e.id === fact.id);
    expect(entry!.content).toHaveLength(8192);
    expect(entry!.lifecycle!.truncated).toEqual({ originalChars: text.length });
    // A fact that fits says nothing about truncation.
    const short = await mem.add("u", "I like tea");
    expect(short.facts[0]).not.toHaveProperty("truncated");
    // Adding the same long text again is a duplicate of the kept part, and still says it was cut.
    const again = await mem.add("u", text);
    expect(again.facts[0]).toMatchObject({ action: "duplicate", id: fact.id, truncated: { originalChars: text.length } });
    await mem.close();
  });

  it("accepts maxContentChars up to 1,000,000 and no more (an add's work grows with it)", async () => {
    await (await MemoryStore.open(":memory:", { maxContentChars: MAX_CONTENT_CHARS })).close();
    const err = await rejectsWith(MemoryStore.open(":memory:", { maxContentChars: MAX_CONTENT_CHARS + 1 }), "INVALID_ARGUMENT");
    expect(err.message).toContain("maxContentChars");
  });

  it("never splits a surrogate pair when it cuts", async () => {
    const mem = await MemoryStore.open(":memory:", { maxContentChars: 16 });
    const summary = await mem.add("u", "abcdefghijklmno😀tail");
    expect(summary.facts[0]!.content).toBe("abcdefghijklmno");
    expect(summary.facts[0]!.truncated).toEqual({ originalChars: 21 });
    await mem.close();
  });

  it(
    "stores and finds 128 Ki units of unbroken CJK with maxContentChars above it (past the 65,536 where the segmenter fell over)",
    async () => {
      // 1 MB takes seconds (linear, but 2 million tokens); `npm run bench:hostile` times it.
      // The raw extractor keeps the text whole, so this is the store's own handling of a long fact.
      const mem = await openSeeded({ maxContentChars: MAX_CONTENT_CHARS, extractor: new RawExtractor() });
      const text = "花生酱" + cjk(MI / 8, 7);
      const summary = await mem.add("u", text);
      expect(summary.facts[0]).toMatchObject({ action: "inserted" });
      expect(summary.facts[0]).not.toHaveProperty("truncated");
      const hits = await mem.recall("u", "花生酱", { mode: "keyword" });
      expect(hits.map((h) => h.id)).toContain(summary.facts[0]!.id);
      await mem.close();
    },
    HUGE_INPUT_TIMEOUT,
  );

  it(
    "stores 1 MB of each hostile kind with the default maxContentChars",
    async () => {
      const kinds = [
        cjk(MI),
        "x".repeat(MI),
        "é".repeat(MI),
        "👍🏽".repeat(MI / 4),
        "a\u0301".repeat(MI / 2),
        "x\u200d".repeat(MI / 2),
        ". ".repeat(MI / 2) + "x",
      ];
      // The raw extractor keeps each text whole: the store must cut it and say so.
      const raw = await openSeeded({ extractor: new RawExtractor() });
      for (const text of kinds) {
        const summary = await raw.add("u", text);
        expect(summary.facts[0]!.truncated).toEqual({ originalChars: text.length });
        expect(summary.facts[0]!.content.length).toBeLessThanOrEqual(8192);
      }
      await raw.close();
      // The default extractor may drop such text (no statement in it) or keep parts; whatever it keeps is cut to the limit too.
      const mem = await openSeeded();
      for (const text of kinds) {
        const summary = await mem.add("u", text);
        for (const fact of summary.facts) expect(fact.content.length).toBeLessThanOrEqual(8192);
      }
      await mem.close();
    },
    HUGE_INPUT_TIMEOUT,
  );
});

describe("add: text that only looks non-empty", () => {
  const blanks = [
    "\u0000",
    "\u0000\u0000\u0000",
    "\u200b",
    "\u200c\u200d",
    "\ufeff",
    "\u2060",
    " \u200b \n\t",
    "\u3164",
    "\u180e",
    "\ufe0f",
    "\u2800",
    "\udc00",
  ];

  it("rejects text of only NUL, zero-width or other invisible characters as empty, and changes nothing", async () => {
    const mem = await openSeeded();
    const before = await storeState(mem);
    for (const text of blanks) {
      const err = await rejectsWith(mem.add("u", text), "INVALID_ARGUMENT");
      expect(err.message).toContain("empty");
    }
    expect(await storeState(mem)).toBe(before);
    await mem.close();
  });

  it("rejects a transcript whose every message is blank that way", async () => {
    const mem = await openSeeded();
    const before = await storeState(mem);
    await rejectsWith(
      mem.add(
        "u",
        blanks.map((content) => ({ role: "user", content })),
      ),
      "INVALID_ARGUMENT",
    );
    expect(await storeState(mem)).toBe(before);
    await mem.close();
  });

  it("keeps text that has something visible among invisible characters", async () => {
    expect(isBlankText("\u200bhi\u200b")).toBe(false);
    expect(isBlankText("\u0301")).toBe(false); // a lone combining mark is shown (on a dotted circle)
    expect(isBlankText("。")).toBe(false);
    const mem = await openSeeded();
    const summary = await mem.add("u", "\u0000I like\u200b tea\u0000");
    expect(summary.inserted).toBe(1);
    await mem.close();
  });

  it("drops an extracted fact whose content is blank that way (an empty fact is no fact)", async () => {
    const extractor: Extractor = {
      mode: "blanks",
      extract: () =>
        Promise.resolve([
          { content: "\u200b\u0000", kind: "fact" },
          { content: "I like tea", kind: "preference" },
        ]),
    };
    const mem = await MemoryStore.open(":memory:", { extractor });
    const summary = await mem.add("u", "I like tea");
    expect(summary.facts.map((f) => f.content)).toEqual(["I like tea"]);
    expect(summary.degraded).toBe(false);
    await mem.close();
  });
});

describe("add: transcripts", () => {
  it(
    "takes a transcript of 100,000 messages, and rejects one more (or a sparse array that long)",
    async () => {
      const mem = await openSeeded();
      const long = Array.from({ length: MAX_TRANSCRIPT_MESSAGES }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i}` }));
      const summary = await mem.add("u", long);
      expect(summary.inserted).toBe(1);
      expect(summary.facts[0]!.truncated).toBeDefined();
      const before = await storeState(mem);
      const err = await rejectsWith(mem.add("u", [...long, { role: "user", content: "one more" }]), "INVALID_ARGUMENT");
      expect(err.message).toContain(`the limit is ${MAX_TRANSCRIPT_MESSAGES}`);
      await rejectsWith(mem.add("u", new Array(2 ** 32 - 1) as never), "INVALID_ARGUMENT");
      const holes = new Array(3) as Array<{ role: string; content: string }>;
      holes[2] = { role: "user", content: "hi" };
      expect((await rejectsWith(mem.add("u", holes), "INVALID_ARGUMENT")).message).toContain("message 0");
      expect(await storeState(mem)).toBe(before);
      await mem.close();
    },
    HUGE_INPUT_TIMEOUT,
  );
});

describe("metadata limits", () => {
  it("accepts metadata up to the limits and rejects beyond them, for add and for the recall/list filter", async () => {
    const mem = await openSeeded();
    const before = await storeState(mem);
    const tooBig: Metadata[] = [
      { blob: "x".repeat(70_000) },
      { list: new Array(20_000).fill(1) },
      Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])),
      { sparse: new Array(2 ** 32 - 1) },
      { ["k".repeat(70_000)]: 1 },
      { escaped: "\u0001".repeat(20_000) }, // 20,000 characters, 120,000 as JSON ("\u0001" each)
    ] as unknown as Metadata[];
    for (const metadata of tooBig) {
      const err = await rejectsWith(mem.add("u", "text", { metadata }), "INVALID_ARGUMENT");
      expect(err.message).toMatch(/too large|hole/);
      await rejectsWith(mem.recall("u", "text", { metadata }), "INVALID_ARGUMENT");
      await rejectsWith(mem.list("u", { metadata }), "INVALID_ARGUMENT");
    }
    expect(await storeState(mem)).toBe(before);
    const fits = { note: "x".repeat(60_000), tags: new Array(1000).fill("t") };
    const summary = await mem.add("u", "text with big metadata", { metadata: fits });
    expect((await mem.list("u", { metadata: { tags: fits.tags } })).map((e) => e.id)).toEqual([summary.facts[0]!.id]);
    await mem.close();
  });

  it("leaves out properties whose value is undefined, as JSON does, and keeps a __proto__ key as data", async () => {
    const mem = await openSeeded();
    const metadata = JSON.parse('{"__proto__": {"polluted": true}, "channel": "chat"}') as Record<string, unknown>;
    metadata["skip"] = undefined;
    const summary = await mem.add("u", "I like green tea", { metadata: metadata as never });
    const [entry] = (await mem.list("u")).filter((e) => e.id === summary.facts[0]!.id);
    expect(Object.keys(entry!.metadata)).toEqual(expect.arrayContaining(["__proto__", "channel"]));
    expect(entry!.metadata).not.toHaveProperty("skip");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(entry!.metadata)).toBe(Object.prototype);
    await mem.close();
  });
});

describe("bookkeeping the store itself writes stays bounded", () => {
  it("keeps the newest 50 ids in an entry's conflict list, however many facts coexist with it", async () => {
    // Every add rewrites the old entry; an unbounded list made N adds write O(N²) bytes.
    const mem = await MemoryStore.open(":memory:", { judge: new ScriptedJudge(() => "coexist") });
    const old = (await mem.add("u", "alpha beta gamma")).facts[0]!.id;
    const added: string[] = [];
    for (let i = 0; i < 120; i++) added.push((await mem.add("u", `alpha beta gamma delta${i}`)).facts[0]!.id);
    const entry = (await mem.list("u")).find((e) => e.id === old)!;
    const conflict = entry.lifecycle?.conflict as string[];
    expect(conflict).toHaveLength(MAX_CONFLICT_IDS);
    expect(conflict).toEqual(added.slice(-MAX_CONFLICT_IDS));
    await mem.close();
  });
});
