import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock } from "../../src/index.ts";
import { RuleExtractor, ScriptedJudge, rejectsWith } from "../helpers/scripted.ts";

const cityRules = [
  { pattern: /live in|moved to|住在|搬到/i, key: "home_city" },
  { pattern: /allergic|过敏/i, key: "allergy" },
];

describe("supersede (AC-04), history and restore", () => {
  it("replaces a fact in the same key slot; recall no longer returns it", async () => {
    const clock = new FixedClock(1_000);
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(cityRules), clock });
    const first = await mem.add("u1", "I live in Beijing");
    await mem.add("u1", "I'm allergic to peanuts");
    clock.advance(60_000);
    const second = await mem.add("u1", "I moved to Shenzhen");
    expect(second.superseded).toBe(1);
    expect(second.facts[0]!.replaced).toEqual([first.facts[0]!.id]);

    const hits = await mem.recall("u1", "where do I live? Beijing or Shenzhen", { topK: 5 });
    expect(hits.map((h) => h.content)).toContain("I moved to Shenzhen");
    expect(hits.map((h) => h.content)).not.toContain("I live in Beijing");

    const [old] = await mem.list("u1", { status: "superseded" });
    expect(old).toMatchObject({ content: "I live in Beijing", supersededBy: second.facts[0]!.id, key: "home_city" });
    const [current] = (await mem.list("u1", { status: "active" })).filter((e) => e.key === "home_city");
    expect(current!.lifecycle!.conflictReason).toMatch(/home_city/);
    expect(current!.lifecycle!.judge).toBe("similarity");

    const chain = await mem.history("u1", second.facts[0]!.id);
    expect(chain.map((e) => e.content)).toEqual(["I live in Beijing", "I moved to Shenzhen"]);
    expect(await mem.history("u1", first.facts[0]!.id)).toEqual(chain);
    await mem.close();
  });

  it("does the same in Chinese", async () => {
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(cityRules) });
    await mem.add("u1", "我住在北京");
    const s = await mem.add("u1", "我搬到深圳了");
    expect(s.superseded).toBe(1);
    const hits = await mem.recall("u1", "住在哪里");
    expect(hits.map((h) => h.content)).not.toContain("我住在北京");
    await mem.close();
  });

  it("follows an injected judge, recording its reason", async () => {
    const judge = new ScriptedJudge((fact, candidate) => (fact.includes("Shenzhen") && candidate.includes("Beijing") ? "replace" : "ignore"));
    const mem = await MemoryStore.open(":memory:", { judge });
    await mem.add("u1", "I live in Beijing");
    const s = await mem.add("u1", "I moved to Shenzhen last month");
    expect(s.superseded).toBe(1);
    expect(judge.calls).toBeGreaterThan(0);
    const active = await mem.list("u1", { status: "active" });
    expect(active.map((e) => e.content)).toEqual(["I moved to Shenzhen last month"]);
    expect(active[0]!.lifecycle).toMatchObject({ judge: "scripted", conflictReason: "scripted: I moved to Shenzhen last month vs I live in Beijing" });
    expect((await mem.recall("u1", "Beijing")).map((h) => h.content)).not.toContain("I live in Beijing");
    await mem.close();
  });

  it("judges all facts of one add in one judgeAll call", async () => {
    let calls = 0;
    const judge = {
      name: "batch",
      judge: () => Promise.reject(new Error("judge() must not be called when judgeAll exists")),
      judgeAll: (items: Array<{ fact: { key?: string }; candidates: Array<{ id: string; key?: string }> }>) => {
        calls++;
        return Promise.resolve(
          items.map((it) =>
            it.candidates.map((c) => ({ id: c.id, decision: c.key === it.fact.key ? ("replace" as const) : ("ignore" as const), reason: "batch" })),
          ),
        );
      },
    };
    const rules = [...cityRules, { pattern: /work at|job/i, key: "employer" }];
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(rules), judge });
    await mem.add("u1", "I live in Lyon\nI work at Airbus\nI'm allergic to cats");
    expect(calls).toBe(0); // nothing to compare with yet: no call at all
    const s = await mem.add("u1", "I moved to Toulouse\nI work at Thales now\nI'm allergic to dogs too");
    expect(calls).toBe(1);
    expect(s.superseded).toBe(3);
    expect((await mem.list("u1", { status: "active" })).map((e) => e.lifecycle?.judge)).toEqual(["batch", "batch", "batch"]);
    await mem.close();
  });

  it("marks coexisting facts on both sides", async () => {
    const judge = new ScriptedJudge(() => "coexist");
    const mem = await MemoryStore.open(":memory:", { judge });
    const a = await mem.add("u1", "I like jazz");
    const b = await mem.add("u1", "I like jazz and techno");
    expect(b.conflicts).toBe(1);
    const [ea, eb] = await mem.list("u1");
    expect(ea!.lifecycle!.conflict).toEqual([b.facts[0]!.id]);
    expect(eb!.lifecycle!.conflict).toEqual([a.facts[0]!.id]);
    expect(ea!.status).toBe("active");
    await mem.close();
  });

  it("falls back to the similarity judge when the injected judge fails", async () => {
    const judge = { name: "broken", judge: () => Promise.reject(new Error("judge model timed out")) };
    const mem = await MemoryStore.open(":memory:", { judge, extractor: new RuleExtractor(cityRules) });
    await mem.add("u1", "I live in Beijing");
    const s = await mem.add("u1", "I moved to Shenzhen");
    expect(s.superseded).toBe(1);
    const [active] = await mem.list("u1", { status: "active" });
    expect(active!.lifecycle!.judge).toBe("similarity-fallback");
    expect(active!.lifecycle!.judgeFallback).toMatch(/timed out/);
    await mem.close();
  });

  it("restore undoes a wrong supersede and a forget", async () => {
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(cityRules) });
    const a = await mem.add("u1", "I live in Beijing");
    const b = await mem.add("u1", "I moved to Shenzhen");
    const oldId = a.facts[0]!.id;
    const newId = b.facts[0]!.id;
    const restored = await mem.restore("u1", oldId);
    expect(restored).toMatchObject({ id: oldId, status: "active" });
    expect(restored.supersededBy).toBeUndefined();
    const all = await mem.list("u1");
    expect(all.find((e) => e.id === newId)).toMatchObject({ status: "superseded", supersededBy: oldId });
    expect((await mem.recall("u1", "Beijing")).map((h) => h.id)).toContain(oldId);
    expect((await mem.recall("u1", "Shenzhen")).map((h) => h.id)).not.toContain(newId);

    expect(await mem.forget("u1", { id: oldId })).toBe(1);
    expect(await mem.recall("u1", "Beijing")).toEqual([]);
    const back = await mem.restore("u1", oldId);
    expect(back.status).toBe("active");
    expect((await mem.recall("u1", "Beijing")).map((h) => h.id)).toEqual([oldId]);
    await rejectsWith(mem.restore("u1", oldId), "INVALID_ARGUMENT");
    await rejectsWith(mem.restore("u2", oldId), "INVALID_ARGUMENT");
    await mem.close();
  });

  it("an older observed fact does not replace a newer one", async () => {
    const clock = new FixedClock(Date.UTC(2026, 0, 1));
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(cityRules), clock });
    const now = await mem.add("u1", "I moved to Shenzhen");
    const past = await mem.add("u1", "I live in Beijing", { observedAt: Date.UTC(2020, 0, 1) });
    expect(past.superseded).toBe(0);
    const active = await mem.list("u1", { status: "active" });
    expect(active.map((e) => e.content)).toEqual(["I moved to Shenzhen"]);
    const [old] = await mem.list("u1", { status: "superseded" });
    expect(old).toMatchObject({ content: "I live in Beijing", supersededBy: now.facts[0]!.id });
    await mem.close();
  });
});

describe("profile", () => {
  it("shows each slot's current value and follows supersede and restore", async () => {
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(cityRules) });
    const a = await mem.add("u1", "I live in Beijing");
    await mem.add("u1", "I'm allergic to peanuts");
    await mem.add("u1", "I moved to Shenzhen");
    let p = await mem.profile("u1");
    expect(p.userId).toBe("u1");
    expect(Object.keys(p.slots)).toEqual(["allergy", "home_city"]);
    expect(p.slots["home_city"]!.value).toBe("I moved to Shenzhen");
    await mem.restore("u1", a.facts[0]!.id);
    p = await mem.profile("u1");
    expect(p.slots["home_city"]!.value).toBe("I live in Beijing");
    expect((await mem.profile("nobody")).slots).toEqual({});
    await rejectsWith(mem.profile("../x"), "INVALID_USER_ID");
    await mem.close();
  });
});

describe("same-key candidates", () => {
  it("supersedes a slot value worded with no words in common", async () => {
    const rules = [{ pattern: /./, key: "home_city" }];
    const mem = await MemoryStore.open(":memory:", { extractor: new RuleExtractor(rules) });
    // no shared word, no shared character: only the key brings the old value before the judge
    await mem.add("u1", "Beijing");
    const s = await mem.add("u1", "现居深圳");
    expect(s.superseded).toBe(1);
    expect((await mem.list("u1", { status: "active" })).map((e) => e.content)).toEqual(["现居深圳"]);
    await mem.close();
  });
});
