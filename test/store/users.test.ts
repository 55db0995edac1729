// MemoryStore.users(): every user with counts per status and the time of their latest change.

import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock, MemoryBackend } from "../../src/index.ts";
import { RuleExtractor, rejectsWith } from "../helpers/scripted.ts";

const T0 = Date.UTC(2025, 5, 1);
const cityRules = [
  { pattern: /live in|moved to/i, key: "home_city" },
  { pattern: /like/i, key: "likes" },
];

describe("users()", () => {
  it("is empty for an empty store", async () => {
    const mem = await MemoryStore.open(":memory:");
    expect(await mem.users()).toEqual([]);
    await mem.close();
  });

  it("counts each status per user, keeps users apart, takes the latest updatedAt, and sorts by user id", async () => {
    const clock = new FixedClock(T0);
    const mem = await MemoryStore.open(":memory:", { clock, extractor: new RuleExtractor(cityRules) });
    await mem.add("zoe", "I live in Beijing");
    clock.advance(1000);
    await mem.add("zoe", "I moved to Shenzhen"); // supersedes Beijing (same key)
    clock.advance(1000);
    const tea = await mem.add("zoe", "I like green tea");
    clock.advance(1000);
    await mem.add("adam", "I like chess");
    clock.advance(5000);
    await mem.forget("zoe", { id: tea.facts[0]!.id });

    const users = await mem.users();
    expect(users).toEqual([
      { userId: "adam", total: 1, active: 1, superseded: 0, deleted: 0, unstructured: 0, lastWriteAt: T0 + 3000 },
      { userId: "zoe", total: 3, active: 1, superseded: 1, deleted: 1, unstructured: 0, lastWriteAt: T0 + 8000 },
    ]);
    // The counts agree with list() per status, and the sums with stats().
    for (const u of users) {
      for (const status of ["active", "superseded", "deleted", "unstructured"] as const) {
        expect((await mem.list(u.userId, { status })).length).toBe(u[status]);
      }
    }
    const stats = await mem.stats();
    expect(users.reduce((n, u) => n + u.total, 0)).toBe(stats.total);
    expect(users.length).toBe(stats.users);
    await mem.close();
  });

  it("counts entries stored unstructured when extraction failed", async () => {
    const failing = { mode: "down", extract: () => Promise.reject(new Error("model down")) };
    const mem = await MemoryStore.open(":memory:", { extractor: failing });
    await mem.add("u1", "raw text kept as is");
    expect(await mem.users()).toMatchObject([{ userId: "u1", total: 1, unstructured: 1, active: 0 }]);
    await mem.close();
  });

  it("works on a read-only store and answers from what was stored", async () => {
    const backend = new MemoryBackend("users-ro");
    const writer = await MemoryStore.open("users-ro", { backend });
    await writer.add("u1", "I like chess");
    await writer.close();
    const reader = await MemoryStore.open("users-ro", { backend, readOnly: true });
    expect(await reader.users()).toMatchObject([{ userId: "u1", total: 1, active: 1 }]);
    await reader.close();
  });

  it("returns copies: changing the result changes nothing in the store", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("u1", "I like chess");
    const first = await mem.users();
    first[0]!.active = 99;
    first.pop();
    expect(await mem.users()).toMatchObject([{ userId: "u1", active: 1 }]);
    await mem.close();
  });

  it("rejects after close with STORE_CLOSED", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.close();
    await rejectsWith(mem.users(), "STORE_CLOSED");
  });
});
