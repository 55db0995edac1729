// Every plug-in output is checked before anything is staged: clock times, embedder vectors and dim,
// extracted facts, judge verdicts. A bad plug-in is a coded error or a documented degrade, never a broken store.

import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend, FixedClock, type Clock, type ConflictJudge, type Embedder, type Extractor } from "../../src/index.ts";
import { PLUGIN_LIMITS } from "../../src/validation/plugin-checks.ts";
import { RuleExtractor, rejectsWith } from "../helpers/scripted.ts";
import { storeState } from "../helpers/store-state.ts";

const T0 = Date.UTC(2026, 0, 1);

/** A clock that answers `good` until told to answer `bad`. */
class SwitchClock implements Clock {
  answer: { bad: unknown } | null = null;
  throwing = false;
  now(): number {
    if (this.throwing) throw new Error("clock broke");
    return (this.answer === null ? T0 : this.answer.bad) as number;
  }
}

const BAD_TIMES: unknown[] = [Number.NaN, Infinity, -Infinity, "1767225600000", new Date(T0), 1e300, -8.64e15 - 1, 8.64e15 + 1, null, 10n, {}];

describe("clock", () => {
  it("refuses at open a clock whose now() is not a time a Date can hold", async () => {
    for (const bad of BAD_TIMES) {
      const err = await rejectsWith(MemoryStore.open(":memory:", { clock: { now: () => bad as number } }), "INVALID_ARGUMENT");
      expect(err.message).toContain("now()");
    }
    await rejectsWith(
      MemoryStore.open(":memory:", {
        clock: {
          now: () => {
            throw new Error("no time");
          },
        },
      }),
      "INVALID_ARGUMENT",
    );
  });

  it("rejects every write while the clock answers nonsense, stages nothing, and the store reopens intact", async () => {
    const backend = new MemoryBackend("clock-test");
    const clock = new SwitchClock();
    const mem = await MemoryStore.open("clock-test", { backend, clock, extractor: new RuleExtractor([{ pattern: /live in/i, key: "home_city" }]) });
    const first = await mem.add("u", "I live in Beijing");
    const before = await storeState(mem);
    for (const bad of [...BAD_TIMES, "throw"]) {
      if (bad === "throw") clock.throwing = true;
      else clock.answer = { bad };
      await rejectsWith(mem.add("u", "I live in Shenzhen"), "INVALID_ARGUMENT");
      await rejectsWith(mem.forget("u", { id: first.facts[0]!.id }), "INVALID_ARGUMENT");
      await rejectsWith(mem.forget("u", { all: true }), "INVALID_ARGUMENT");
      clock.answer = null;
      clock.throwing = false;
      expect(await storeState(mem)).toBe(before);
    }
    await mem.close();
    // The next open is fine and sees exactly the one acknowledged add.
    const again = await MemoryStore.open("clock-test", { backend, clock: new FixedClock(T0) });
    expect((await again.list("u")).map((e) => [e.content, e.status, e.createdAt])).toEqual([["I live in Beijing", "active", T0]]);
    await again.close();
  });
});

describe("embedder", () => {
  function embedderReturning(make: (texts: string[]) => unknown, dim = 4): Embedder {
    return { dim, id: "test/4", embed: (texts) => Promise.resolve(make(texts) as Float32Array[]) };
  }

  it("degrades the add (keywords still find it) when vectors are NaN, Infinity, too short, too many or not vectors", async () => {
    const bad: Array<(texts: string[]) => unknown> = [
      (t) => t.map(() => new Float32Array([1, Number.NaN, 0, 0])),
      (t) => t.map(() => [1, Infinity, 0, 0]),
      (t) => t.map(() => [1e39, 0, 0, 0]), // finite as a number, Infinity as a 32-bit float
      (t) => t.map(() => new Float32Array(3)),
      (t) => [...t, t].map(() => new Float32Array(4)),
      (t) => t.map(() => ["1", "0", "0", "0"]),
      (t) => t.map(() => new BigInt64Array(4)),
      () => "vectors",
      () => null,
    ];
    for (const make of bad) {
      const mem = await MemoryStore.open(":memory:", { embedder: embedderReturning(make) });
      const summary = await mem.add("u", "I'm allergic to peanuts");
      expect(summary).toMatchObject({ degraded: true, inserted: 1 });
      const [entry] = await mem.list("u");
      expect(entry!.lifecycle!.embeddingDegraded).toMatch(/embedder returned/);
      expect((await mem.recall("u", "peanuts"))[0]!.id).toBe(entry!.id);
      await mem.close();
    }
  });

  it("accepts number[] and Float64Array vectors, and keeps its own copy of each", async () => {
    const shared = new Float32Array([1, 0, 0, 0]);
    for (const make of [
      (t: string[]) => t.map(() => [1, 0, 0, 0]),
      (t: string[]) => t.map(() => new Float64Array([1, 0, 0, 0])),
      (t: string[]) => t.map(() => shared),
    ]) {
      const backend = new MemoryBackend();
      const mem = await MemoryStore.open("copy", { backend, embedder: embedderReturning(make), clock: new FixedClock(T0) });
      expect((await mem.add("u", "I'm allergic to peanuts")).degraded).toBe(false);
      expect(await mem.recall("u", "peanuts", { mode: "vector" })).toHaveLength(1);
      const before = await storeState(mem);
      shared[0] = Number.NaN; // the embedder changing its array afterwards changes nothing stored
      expect(await storeState(mem)).toBe(before);
      shared[0] = 1;
      await mem.close();
      await (await MemoryStore.open("copy", { backend, embedder: embedderReturning(make) })).close();
    }
  });

  it("refuses at open a dim that is not an integer from 1 to the limit, a throwing dim getter, or an id that is not a short name", async () => {
    const embed = (): Promise<Float32Array[]> => Promise.resolve([]);
    for (const dim of [0, -1, 1.5, Number.NaN, PLUGIN_LIMITS.dim + 1, 1e9, "256", undefined]) {
      const err = await rejectsWith(MemoryStore.open(":memory:", { embedder: { dim: dim as number, embed } }), "INVALID_ARGUMENT");
      expect(err.message).toContain("embedder.dim");
    }
    const throwing = {
      get dim(): number {
        throw new Error("dim exploded");
      },
      embed,
    };
    const err = await rejectsWith(MemoryStore.open(":memory:", { embedder: throwing }), "INVALID_ARGUMENT");
    expect(err.message).toContain("dim exploded");
    expect(err.cause).toBeInstanceOf(Error);
    for (const id of [42, "", "x".repeat(PLUGIN_LIMITS.nameChars + 1), "a\nb", {}]) {
      await rejectsWith(MemoryStore.open(":memory:", { embedder: { dim: 4, id: id as string, embed } }), "INVALID_ARGUMENT");
    }
  });
});

describe("extractor", () => {
  function extractorReturning(value: unknown): Extractor {
    return { mode: "test", extract: () => Promise.resolve(value as never) };
  }

  it("degrades to an unstructured entry, with the reason, when facts are malformed or out of bounds", async () => {
    const cases: Array<[unknown, RegExp]> = [
      ["not facts", /expected an array/],
      [[{ content: "a", kind: "fact", key: "k".repeat(PLUGIN_LIMITS.keyChars + 1) }], /invalid key/],
      [[{ content: "a", kind: "fact", key: "   " }], /invalid key/],
      [[{ content: "a", kind: "fact", key: 7 }], /invalid key/],
      [[{ content: "a", kind: "opinion" }], /kind "opinion"/],
      [[{ content: 42, kind: "fact" }], /no string content/],
      [[{ content: "a", kind: "fact", sourceSpan: 3 }], /sourceSpan/],
      [[null], /not an object/],
      [Array.from({ length: PLUGIN_LIMITS.facts + 1 }, (_, i) => ({ content: `fact ${i}`, kind: "fact" })), /the limit is/],
      [
        [
          {
            get content(): string {
              throw new Error("getter exploded");
            },
            kind: "fact",
          },
        ],
        /getter exploded/,
      ],
    ];
    for (const [value, reason] of cases) {
      const mem = await MemoryStore.open(":memory:", { extractor: extractorReturning(value) });
      const summary = await mem.add("u", "I live in Lisbon");
      expect(summary).toMatchObject({ degraded: true, inserted: 1 });
      const [entry] = await mem.list("u");
      expect(entry).toMatchObject({ content: "I live in Lisbon", status: "unstructured" });
      expect(entry!.lifecycle!.extractionDegraded).toMatch(reason);
      await mem.close();
    }
  });

  it("takes null for key and sourceSpan as none, and cuts a sourceSpan longer than maxContentChars", async () => {
    const mem = await MemoryStore.open(":memory:", {
      maxContentChars: 16,
      extractor: extractorReturning([
        { content: "likes tea", kind: "preference", key: null, sourceSpan: null },
        { content: "lives in Lisbon", kind: "fact", key: "home_city", sourceSpan: "x".repeat(100) },
      ]),
    });
    const summary = await mem.add("u", "whatever");
    expect(summary.degraded).toBe(false);
    const entries = await mem.list("u");
    expect(entries[0]).not.toHaveProperty("key");
    expect(entries[0]!.lifecycle).not.toHaveProperty("sourceSpan");
    expect(entries[1]!.lifecycle!.sourceSpan).toBe("x".repeat(16));
    await mem.close();
  });

  it("refuses at open a mode that is not a short name", async () => {
    for (const mode of [7, "", "m".repeat(PLUGIN_LIMITS.nameChars + 1), "a\u0000b"]) {
      await rejectsWith(MemoryStore.open(":memory:", { extractor: { mode: mode as string, extract: () => Promise.resolve([]) } }), "INVALID_ARGUMENT");
    }
  });
});

describe("judge", () => {
  const cityRules = [{ pattern: /live in|moved to/i, key: "home_city" }];

  async function judged(judge: ConflictJudge): Promise<{ mem: MemoryStore; oldId: string }> {
    const mem = await MemoryStore.open(":memory:", { judge, extractor: new RuleExtractor(cityRules) });
    const first = await mem.add("u", "I live in Beijing");
    return { mem, oldId: first.facts[0]!.id };
  }

  it("ignores verdicts about ids that are not candidates (another user's entry included), and judges each id once", async () => {
    let otherUsersId = "";
    const judge: ConflictJudge = {
      name: "hostile",
      judge: (_fact, candidates) =>
        Promise.resolve([
          { id: otherUsersId, decision: "replace" as const },
          { id: "no-such-id", decision: "replace" as const },
          { id: candidates[0]!.id, decision: "coexist" as const, reason: "first" },
          { id: candidates[0]!.id, decision: "replace" as const, reason: "second" },
        ]),
    };
    const { mem, oldId } = await judged(judge);
    otherUsersId = (await mem.add("v", "I live in Paris")).facts[0]!.id;
    const summary = await mem.add("u", "I moved to Shenzhen");
    expect(summary.facts[0]).toMatchObject({ conflicts: [oldId] });
    expect(summary.facts[0]).not.toHaveProperty("replaced");
    expect((await mem.list("v"))[0]!.status).toBe("active");
    await mem.close();
  });

  it("cuts a reason longer than the limit", async () => {
    const judge: ConflictJudge = {
      judge: (_fact, candidates) => Promise.resolve(candidates.map((c) => ({ id: c.id, decision: "replace" as const, reason: "because ".repeat(100_000) }))),
    };
    const { mem } = await judged(judge);
    await mem.add("u", "I moved to Shenzhen");
    const active = (await mem.list("u", { status: "active" }))[0]!;
    const reason = active.lifecycle?.conflictReason as string;
    expect(reason.length).toBeLessThanOrEqual(PLUGIN_LIMITS.reasonChars);
    expect(reason.endsWith("…")).toBe(true);
    await mem.close();
  });

  it("falls back to the offline judge, with the reason, when verdicts are malformed", async () => {
    const answers: unknown[] = [
      "replace",
      [{ id: "x", decision: "maybe" }],
      [null],
      new Array(1000).fill({ id: "x", decision: "ignore" }),
      [
        {
          get decision(): string {
            throw new Error("verdict getter exploded");
          },
        },
      ],
    ];
    for (const answer of answers) {
      const { mem } = await judged({ name: "broken", judge: () => Promise.resolve(answer as never) });
      const summary = await mem.add("u", "I moved to Shenzhen");
      expect(summary.superseded).toBe(1); // the offline judge replaces the same key
      const [active] = await mem.list("u", { status: "active" });
      expect(active!.lifecycle!.judge).toBe("similarity-fallback");
      expect(active!.lifecycle!.judgeFallback).toMatch(/judge failed/);
      await mem.close();
    }
  });

  it("refuses at open a name that is not a short name", async () => {
    for (const name of [7, "", "n".repeat(PLUGIN_LIMITS.nameChars + 1)]) {
      await rejectsWith(MemoryStore.open(":memory:", { judge: { name: name as string, judge: () => Promise.resolve([]) } }), "INVALID_ARGUMENT");
    }
  });
});

describe("storage backend", () => {
  /** A memory backend whose named method throws a plain Error (not a MoomemError). */
  class BrokenBackend extends MemoryBackend {
    constructor(public broken: string) {
      super("broken");
    }
    override load(): ReturnType<MemoryBackend["load"]> {
      if (this.broken === "load") throw new TypeError("load exploded");
      return super.load();
    }
    override compact(source: Parameters<MemoryBackend["compact"]>[0]): Promise<void> {
      if (this.broken === "compact") return Promise.reject(new Error("compact exploded"));
      return super.compact(source);
    }
    override stats(): ReturnType<MemoryBackend["stats"]> {
      if (this.broken === "stats") throw new RangeError("stats exploded");
      return super.stats();
    }
    override close(): Promise<void> {
      if (this.broken === "close") return Promise.reject(new Error("close exploded"));
      return super.close();
    }
    override wantsCompaction(): boolean {
      if (this.broken === "wantsCompaction") throw new Error("wantsCompaction exploded");
      return super.wantsCompaction();
    }
  }

  it("turns a host backend's plain errors into IO_FAILURE with the error as cause", async () => {
    for (const broken of ["load", "compact"]) {
      const err = await rejectsWith(MemoryStore.open("broken", { backend: new BrokenBackend(broken) }), "IO_FAILURE");
      expect(err.message).toContain(`${broken} exploded`);
      expect(err.cause).toBeInstanceOf(Error);
    }
    const statsBroken = new BrokenBackend("none");
    const mem = await MemoryStore.open("broken", { backend: statsBroken });
    statsBroken.broken = "stats";
    await rejectsWith(mem.stats(), "IO_FAILURE");
    statsBroken.broken = "wantsCompaction";
    expect((await mem.add("u", "still stored")).inserted).toBe(1);
    statsBroken.broken = "close";
    await rejectsWith(mem.close(), "IO_FAILURE");
  });
});
