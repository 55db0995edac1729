import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { MemoryStore, FixedClock, type Embedder } from "../../src/index.ts";
import { RuleExtractor, rejectsWith } from "../helpers/scripted.ts";

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of it) out.push(line);
  return out;
}

function comparable(entries: Awaited<ReturnType<MemoryStore["list"]>>): unknown[] {
  return entries.map(({ seq: _seq, ...rest }) => rest);
}

describe("export and import (FR-08)", () => {
  it("round-trips a store: same entries, statuses, chains, times, metadata, recall", async () => {
    const words = ["Beijing", "Shenzhen", "peanuts", "cello", "Miso the cat", "nurse", "花生", "深圳"];
    const op = fc.oneof(
      fc.record({
        t: fc.constant("add" as const),
        user: fc.constantFrom("a", "b", "c"),
        text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }).map((w) => `I live in ${w.join(" ")}`),
      }),
      fc.record({ t: fc.constant("forget" as const), user: fc.constantFrom("a", "b", "c"), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const clock = new FixedClock(1_700_000_000_000);
        const src = await MemoryStore.open(":memory:", { clock, extractor: new RuleExtractor([{ pattern: /live in/, key: "home_city" }]) });
        for (const o of ops) {
          clock.advance(1000);
          if (o.t === "add") await src.add(o.user, o.text, { metadata: { n: o.text.length } });
          else {
            const list = await src.list(o.user);
            if (list.length > 0) await src.forget(o.user, { id: list[o.pick % list.length]!.id });
          }
        }
        const lines = await collect(src.export());
        const dst = await MemoryStore.open(":memory:");
        const summary = await dst.import(lines);
        const total = (await src.stats()).total;
        expect(summary.entries).toBe(total);
        for (const user of ["a", "b", "c"]) {
          expect(comparable(await dst.list(user))).toEqual(comparable(await src.list(user)));
          expect(await dst.recall(user, "where do I live")).toEqual(await src.recall(user, "where do I live"));
        }
        const s1 = await src.stats();
        const s2 = await dst.stats();
        expect([s2.total, s2.active, s2.superseded, s2.deleted, s2.users]).toEqual([s1.total, s1.active, s1.superseded, s1.deleted, s1.users]);
        await src.close();
        await dst.close();
      }),
      { numRuns: 25 },
    );
  });

  it("exports one user, accepts chunks that split lines, and re-embeds for another embedder", async () => {
    const src = await MemoryStore.open(":memory:");
    await src.add("a", "alpha memory one");
    await src.add("b", "beta memory two");
    const text = (await collect(src.export({ userId: "a" }))).join("");
    expect(text.split("\n").filter(Boolean)).toHaveLength(2);
    const chunks = [text.slice(0, 7), text.slice(7, 90), text.slice(90)];
    const embedder: Embedder = { dim: 2, id: "tiny/2", embed: (t) => Promise.resolve(t.map(() => Float32Array.of(0.6, 0.8))) };
    const dst = await MemoryStore.open(":memory:", { embedder });
    expect(await dst.import(chunks)).toMatchObject({ entries: 1, users: 1 });
    const hits = await dst.recall("a", "alpha", { mode: "vector" });
    expect(hits.map((h) => h.content)).toEqual(["alpha memory one"]);
    expect(await dst.recall("b", "beta")).toEqual([]);
    await src.close();
    await dst.close();
  });

  it("imports nothing when one line is bad, naming the line", async () => {
    const src = await MemoryStore.open(":memory:");
    await src.add("a", "one");
    await src.add("a", "two");
    const lines = await collect(src.export());
    const broken = [...lines.slice(0, 2), "{not json\n", ...lines.slice(2)];
    const dst = await MemoryStore.open(":memory:");
    const err = await rejectsWith(dst.import(broken), "INVALID_ARGUMENT");
    expect(err.message).toMatch(/line 3/);
    expect((await dst.stats()).total).toBe(0);
    const badUser = lines.map((l, i) => (i === 1 ? l.replace('"user_id":"a"', '"user_id":"../etc"') : l));
    expect((await rejectsWith(dst.import(badUser), "INVALID_ARGUMENT")).message).toMatch(/line 2/);
    await rejectsWith(dst.import("just a string" as never), "INVALID_ARGUMENT");
    expect((await dst.stats()).total).toBe(0);
    // importing the same export twice skips what is already there
    await dst.import(lines);
    expect(await dst.import(lines)).toMatchObject({ entries: 0 });
    await src.close();
    await dst.close();
  });
});
