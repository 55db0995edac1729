import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock } from "../../src/index.ts";
import type { ConflictJudge, Metadata } from "../../src/types.ts";
import { RuleExtractor } from "../helpers/scripted.ts";

/** User metadata that uses every name the store once kept its own bookkeeping under, with values of the store's kinds. */
const LOOKALIKE: Metadata = {
  purged: true,
  purged_at: 5,
  deleted_from: "superseded",
  deleted_at: 6,
  extraction_degraded: "not really",
  embedding_degraded: "not really",
  extractor: "my-pipeline",
  judge: "my-judge",
  judge_fallback: "none",
  conflict: ["not-an-entry"],
  conflict_reason: "mine",
  source_span: "mine",
  truncated: { originalChars: 1 },
  restored_at: 7,
  reextracted_from: "not-an-entry",
  reextracted_into: ["not-an-entry"],
  reextracted_at: 8,
};

const replaceAll: ConflictJudge = {
  name: "replace-all",
  judge: (_f, candidates) => Promise.resolve(candidates.map((c) => ({ id: c.id, decision: "replace" as const }))),
};

describe("user metadata is the user's: no key changes what the store does", () => {
  it("restore brings back a forgotten entry whose metadata says purged (it was refused)", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(1_000) });
    const { facts } = await mem.add("u", "I have a dog named Rex", { metadata: LOOKALIKE });
    const id = facts[0]!.id;
    expect(await mem.forget("u", { id })).toBe(1);
    // Back in the status it had (active), not the one its metadata names, and with its metadata as given.
    expect(await mem.restore("u", id)).toMatchObject({ status: "active", content: "I have a dog named Rex", metadata: LOOKALIKE });
    await mem.close();
  });

  it("a purge erases a forgotten entry whose metadata says purged (it was skipped)", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(1_000) });
    const { facts } = await mem.add("u", "My bank PIN is 1234", { metadata: { purged: true } });
    const id = facts[0]!.id;
    expect(await mem.forget("u", { id })).toBe(1);
    expect(await mem.forget("u", { id }, { purge: true })).toBe(1);
    const [tombstone] = await mem.list("u");
    expect(tombstone).toMatchObject({ status: "deleted", content: "", metadata: {} });
    await expect(mem.restore("u", id)).rejects.toThrow(/purged/);
    await mem.close();
  });

  it("keeps every key of the user's metadata as given (the store overwrote extractor, judge, …)", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(1_000) });
    await mem.add("u", "I have a dog named Rex", { metadata: LOOKALIKE });
    await mem.add("u", "My dog Rex is a beagle", { metadata: LOOKALIKE });
    for (const entry of await mem.list("u")) expect(entry.metadata).toEqual(LOOKALIKE);
    await mem.close();
  });

  it("a superseded entry restores to active even when its metadata names a failed extraction", async () => {
    const mem = await MemoryStore.open(":memory:", {
      clock: new FixedClock(1_000),
      extractor: new RuleExtractor([{ pattern: /live in/, key: "home_city" }]),
      judge: replaceAll,
    });
    const old = await mem.add("u", "I live in Paris", { metadata: { extraction_degraded: "user note" } });
    await mem.add("u", "I live in Rome");
    const restored = await mem.restore("u", old.facts[0]!.id);
    expect(restored.status).toBe("active");
    expect(restored.metadata).toEqual({ extraction_degraded: "user note" });
    await mem.close();
  });

  it("recall and list filter on the user's values, and export → import keeps them", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(1_000) });
    await mem.add("u", "I play the cello", { metadata: LOOKALIKE });
    expect(await mem.recall("u", "cello", { metadata: { extractor: "my-pipeline" } })).toHaveLength(1);
    expect(await mem.list("u", { metadata: { judge: "my-judge" } })).toHaveLength(1);
    const lines: string[] = [];
    for await (const line of mem.export()) lines.push(line);
    const copy = await MemoryStore.open(":memory:");
    expect(await copy.import(lines)).toMatchObject({ entries: 1 });
    expect((await copy.list("u"))[0]!.metadata).toEqual(LOOKALIKE);
    await Promise.all([mem.close(), copy.close()]);
  });
});
