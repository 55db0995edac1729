import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { MemoryStore } from "../../src/index.ts";
import { rejectsWith } from "../helpers/scripted.ts";

describe("isolation (AC-02)", () => {
  it("rejects ids that break the contract, naming the problem", async () => {
    const mem = await MemoryStore.open(":memory:");
    const bad = ["", "../x", "a/b", "a\\b", ".hidden", "x".repeat(65), "tab\there", "nul\u0000", "new\nline", "space here", "ümlaut", "semi;colon", "emoji😀"];
    for (const id of bad) {
      const err = await rejectsWith(mem.add(id, "secret"), "INVALID_USER_ID");
      expect(err.message.length).toBeGreaterThan(10);
      await rejectsWith(mem.recall(id, "secret"), "INVALID_USER_ID");
      await rejectsWith(mem.list(id), "INVALID_USER_ID");
      await rejectsWith(mem.forget(id, { all: true }), "INVALID_USER_ID");
    }
    expect((await rejectsWith(mem.add("a/b", "x"), "INVALID_USER_ID")).message).toContain('"/"');
    expect((await rejectsWith(mem.add("nul\u0000", "x"), "INVALID_USER_ID")).message).toContain("U+0000");
    for (const id of ["a", "A", "user-42", "u_1.x", "x".repeat(64), "-dash"]) await mem.add(id, "fine print");
    expect((await mem.stats()).total).toBe(6);
    // case-sensitive
    expect(await mem.recall("a", "fine")).toHaveLength(1);
    expect((await mem.recall("A", "fine"))[0]!.userId).toBe("A");
    await mem.close();
  });

  it("never returns another user's memory, for random users, texts and queries", async () => {
    const words = ["peanut", "allergy", "beijing", "shenzhen", "cat", "dog", "salary", "password", "doctor", "wedding", "花生", "北京"];
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((w) => w.join(" "));
    const user = fc.constantFrom("alice", "bob", "carol", "dave");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(user, text), { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(user, text), { minLength: 1, maxLength: 10 }),
        async (writes, queries) => {
          const mem = await MemoryStore.open(":memory:");
          for (const [u, t] of writes) await mem.add(u, `${u} secret ${t}`);
          for (const [u, q] of queries) {
            for (const mode of ["hybrid", "vector", "keyword"] as const) {
              const hits = await mem.recall(u, q, { topK: 100, mode });
              for (const h of hits) {
                expect(h.userId).toBe(u);
                expect(h.content.startsWith(`${u} secret`)).toBe(true);
              }
            }
            for (const e of await mem.list(u)) expect(e.userId).toBe(u);
          }
          await mem.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it("cannot forget, restore or see history of another user's entry by id", async () => {
    const mem = await MemoryStore.open(":memory:");
    const s = await mem.add("alice", "alice's diary");
    const id = s.facts[0]!.id;
    expect(await mem.forget("bob", { id })).toBe(0);
    await rejectsWith(mem.history("bob", id), "INVALID_ARGUMENT");
    await rejectsWith(mem.restore("bob", id), "INVALID_ARGUMENT");
    expect(await mem.forget("bob", { all: true })).toBe(0);
    expect((await mem.list("alice"))[0]!.status).toBe("active");
    await mem.close();
  });
});
