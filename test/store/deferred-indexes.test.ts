// Entries inserted for a user new to the state are indexed on the user's first use, not one by one (a faster import).

import { describe, it, expect } from "vitest";
import { EntryState } from "../../src/state/entry-state.ts";
import type { EntryRecord } from "../../src/types.ts";
import { MemoryStore } from "../../src/index.ts";

const DIM = 4;

function rec(id: string, seq: number, userId: string, content: string, status: EntryRecord["status"] = "active"): EntryRecord {
  return {
    id,
    userId,
    content,
    kind: "fact",
    status,
    createdAt: 1_700_000_000_000 + seq,
    updatedAt: 1_700_000_000_000 + seq,
    seq,
    metadata: {},
    lifecycle: {},
    embedding: Float32Array.of(seq, 1, 0, 0),
    ...(status === "superseded" ? { supersededBy: "x" } : {}),
  };
}

describe("deferred indexes of users new to the state", () => {
  it("indexes every live entry exactly once when the user is first read, and later inserts at once", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1, "ann", "apple"));
    state.insert(rec("b", 2, "ann", "apple banana"));
    state.insert(rec("c", 3, "ann", "gone", "deleted"));
    state.insert(rec("d", 4, "bob", "cherry"));
    const ann = state.shard("ann")!;
    expect(ann.keywords.size).toBe(2);
    expect(ann.vectors.size).toBe(2);
    expect([...ann.dedup.keys()].sort()).toEqual(["apple", "apple banana"]);
    // ann is built now: the next insert is indexed at once, not twice.
    state.insert(rec("e", 5, "ann", "dates"));
    expect(state.shard("ann")!.keywords.size).toBe(3);
    expect(state.shard("bob")!.keywords.size).toBe(1);
    // An undo of a deferred user's insert builds first, then takes the entry out of every index.
    state.insert(rec("f", 6, "cy", "fig"));
    state.insert(rec("g", 7, "cy", "grape"));
    state.remove("g");
    expect(state.shard("cy")!.keywords.size).toBe(1);
    expect(state.entriesOf("cy").map((r) => r.id)).toEqual(["f"]);
  });

  it("an imported store answers every user's recall as the store it was exported from", async () => {
    const source = await MemoryStore.open(":memory:");
    const users = ["ann", "bob", "cy"];
    const facts = ["I live in Berlin", "I love tea", "I am allergic to peanuts", "my sister is a nurse", "I moved to Paris", "I play the violin"];
    for (const [i, fact] of facts.entries()) await source.add(users[i % users.length]!, fact);
    const copy = await MemoryStore.open(":memory:");
    await copy.import(source.export());
    for (const user of users) {
      for (const query of ["where do I live", "what do I drink", "music", "food allergy"]) {
        const strip = (hits: { content: string; score: number }[]): [string, number][] => hits.map((h) => [h.content, h.score]);
        expect(strip(await copy.recall(user, query)), `${user}: ${query}`).toEqual(strip(await source.recall(user, query)));
      }
    }
    await source.close();
    await copy.close();
  });
});
