import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend, FixedClock } from "../../src/index.ts";
import { FaultyBackend, rejectsWith } from "../helpers/scripted.ts";

describe("forget, close, concurrency, failed writes", () => {
  it("forgets by id and all, softly, and purges content on request", async () => {
    const mem = await MemoryStore.open(":memory:");
    const a = await mem.add("u1", "I have a dog named Rex");
    await mem.add("u1", "I play the cello");
    await mem.add("u1", "My bank PIN is 1234");
    expect(await mem.forget("u1", { id: a.facts[0]!.id })).toBe(1);
    expect(await mem.forget("u1", { id: a.facts[0]!.id })).toBe(0);
    expect(await mem.forget("u1", { id: "no-such-id" })).toBe(0);
    expect((await mem.recall("u1", "dog Rex")).map((h) => h.content)).not.toContain("I have a dog named Rex");
    const deleted = await mem.list("u1", { status: "deleted" });
    expect(deleted[0]).toMatchObject({ content: "I have a dog named Rex", status: "deleted" });
    expect(await mem.forget("u1", { all: true }, { purge: true })).toBe(3);
    const after = await mem.list("u1");
    expect(after.every((e) => e.status === "deleted" && e.content === "" && e.lifecycle?.purgedAt !== undefined && Object.keys(e.metadata).length === 0)).toBe(
      true,
    );
    expect(await mem.recall("u1", "PIN")).toEqual([]);
    await rejectsWith(mem.restore("u1", a.facts[0]!.id), "INVALID_ARGUMENT");
    await rejectsWith(mem.forget("u1", {} as never), "INVALID_ARGUMENT");
    await rejectsWith(mem.forget("u1", { all: false } as never), "INVALID_ARGUMENT");
    await rejectsWith(mem.forget("u1", { id: "x", all: true } as never), "INVALID_ARGUMENT");
    const stats = await mem.stats();
    expect(stats).toMatchObject({ total: 3, deleted: 3, active: 0, users: 1 });
    await mem.close();
  });

  it("closes idempotently; every later call throws STORE_CLOSED", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("u1", "x y z");
    await mem.close();
    await mem.close();
    await rejectsWith(mem.add("u1", "more"), "STORE_CLOSED");
    await rejectsWith(mem.recall("u1", "x"), "STORE_CLOSED");
    await rejectsWith(mem.list("u1"), "STORE_CLOSED");
    await rejectsWith(mem.stats(), "STORE_CLOSED");
    await rejectsWith(mem.forget("u1", { all: true }), "STORE_CLOSED");
    expect(() => mem.export()).toThrow(/closed/);
  });

  it("finishes adds issued before close", async () => {
    const mem = await MemoryStore.open(":memory:", { backend: new MemoryBackend("keep") });
    const pending = [mem.add("u1", "one fish"), mem.add("u1", "two birds"), mem.add("u1", "three cows")];
    await mem.close();
    const results = await Promise.all(pending);
    expect(results.every((r) => r.inserted === 1)).toBe(true);
  });

  it("reopens a closed backend with everything written (same-process reopen)", async () => {
    const backend = new MemoryBackend("reopen");
    const mem = await MemoryStore.open("x", { backend });
    await mem.add("u1", "I'm allergic to peanuts");
    const before = await mem.recall("u1", "lunch with peanuts?");
    await mem.close();
    const again = await MemoryStore.open("x", { backend });
    expect(await again.recall("u1", "lunch with peanuts?")).toEqual(before);
    await rejectsWith(MemoryStore.open("x", { backend }), "STORE_LOCKED");
    await again.close();
  });

  it("after a reopen, every user's indexes work whatever the first call touching them (they are built on first use)", async () => {
    const backend = new MemoryBackend("lazy");
    const mem = await MemoryStore.open("x", { backend, clock: new FixedClock(1) });
    const users = ["u1", "u2", "u3", "u4", "u5"];
    for (const user of users) {
      await mem.add(user, `I'm allergic to peanuts, says ${user}`);
      await mem.add(user, `${user} lives in Beijing`);
      await mem.add(user, `${user} plays the cello on Sundays`);
    }
    const recalled = await Promise.all(users.map((u) => mem.recall(u, "peanut allergy", { topK: 3 })));
    await mem.close();

    const again = await MemoryStore.open("x", { backend, clock: new FixedClock(2) });
    // Each user is first touched by a different kind of call.
    expect(await again.stats()).toMatchObject({ total: 15, active: 15, users: 5 });
    expect((await again.add("u1", "I'm allergic to peanuts, says u1")).duplicates).toBe(1);
    const moved = await again.add("u2", "u2 lives in Shenzhen", {});
    expect(moved.inserted).toBe(1);
    expect(await again.recall("u3", "peanut allergy", { topK: 3 })).toEqual(recalled[2]);
    expect(await again.forget("u4", { all: true })).toBe(3);
    expect(await again.recall("u4", "peanut allergy")).toEqual([]);
    expect((await again.list("u5")).map((e) => e.content)).toEqual([
      "I'm allergic to peanuts, says u5",
      "u5 lives in Beijing",
      "u5 plays the cello on Sundays",
    ]);
    expect(await again.recall("u5", "peanut allergy", { topK: 3 })).toEqual(recalled[4]);
    // A touched user's later adds are indexed like before the reopen.
    await again.add("u3", "u3 also fears hazelnuts");
    expect((await again.recall("u3", "hazelnuts"))[0]).toMatchObject({ content: "u3 also fears hazelnuts", keywordRank: 1 });
    await again.close();
  });

  it("serialises concurrent adds and groups their writes", async () => {
    const backend = new FaultyBackend();
    backend.delayMs = 5;
    const mem = await MemoryStore.open("x", { backend, clock: new FixedClock(1) });
    const texts = Array.from({ length: 40 }, (_, i) => `distinct memory ${i} ${"abcdefghijklmnopqrstuvwxyz"[i % 26]!.repeat(i + 1)}`);
    const results = await Promise.all(texts.map((t) => mem.add("u1", t)));
    expect(results.every((r) => r.inserted === 1)).toBe(true);
    expect((await mem.list("u1")).map((e) => e.content)).toEqual(texts);
    const batches = backend.groups.reduce((n, g) => n + g.length, 0);
    expect(batches).toBe(40);
    expect(backend.groups.length).toBeLessThan(40); // group commit: fewer appends than adds
    await mem.close();
  });

  it("rolls back a failed write and everything computed on top of it", async () => {
    const backend = new FaultyBackend();
    const mem = await MemoryStore.open("x", { backend });
    await mem.add("u1", "kept memory");
    backend.failNext = 1;
    backend.delayMs = 5;
    const a = mem.add("u1", "lost memory alpha");
    const b = mem.add("u1", "lost memory alpha"); // a duplicate of a, computed on a's staged state
    const ra = await a.then(
      () => "ok",
      (e: { code: string }) => e.code,
    );
    const rb = await b.then(
      () => "ok",
      (e: { code: string }) => e.code,
    );
    expect(ra).toBe("IO_FAILURE");
    // b was either in the failed group or computed on top of it; either way it is not visible as a duplicate of a lost entry
    const contents = (await mem.list("u1")).map((e) => e.content);
    if (rb === "ok") expect(contents).toEqual(["kept memory", "lost memory alpha"]);
    else expect(contents).toEqual(["kept memory"]);
    expect((await mem.recall("u1", "kept")).map((h) => h.content)).toEqual(["kept memory"]);
    // the store keeps working
    backend.delayMs = 0;
    await mem.add("u1", "later memory");
    expect((await mem.list("u1")).map((e) => e.content)).toContain("later memory");
    await mem.close();
  });

  it("recall waits for the writes it saw to be durable", async () => {
    const backend = new FaultyBackend();
    backend.delayMs = 20;
    const mem = await MemoryStore.open("x", { backend });
    backend.failNext = 1;
    const add = mem.add("u1", "never durable").catch((e: { code: string }) => e.code);
    await new Promise((r) => setTimeout(r, 5));
    const hits = await mem.recall("u1", "never durable");
    expect(await add).toBe("IO_FAILURE");
    expect(hits).toEqual([]);
    await mem.close();
  });

  it("refuses another embedder's store unless asked to reembed", async () => {
    const backend = new MemoryBackend("embedders");
    const mem = await MemoryStore.open("e", { backend });
    await mem.add("u1", "the lighthouse keeper");
    await mem.close();
    const other = { dim: 3, id: "axis/3", embed: (t: string[]) => Promise.resolve(t.map((x) => Float32Array.of(x.length, 1, 0))) };
    const err = await rejectsWith(MemoryStore.open("e", { backend, embedder: other }), "EMBEDDER_MISMATCH");
    expect(err.message).toContain("hashing");
    expect(err.message).toContain("axis/3");
    const re = await MemoryStore.open("e", { backend, embedder: other, reembed: true });
    expect((await re.recall("u1", "lighthouse", { mode: "vector" })).map((h) => h.content)).toEqual(["the lighthouse keeper"]);
    await re.close();
    // the store now belongs to the new embedder
    await rejectsWith(MemoryStore.open("e", { backend }), "EMBEDDER_MISMATCH");
    await (await MemoryStore.open("e", { backend, embedder: other })).close();
  });

  it("a failed background compaction is retried, and close() reports a compaction that fails again", async () => {
    const backend = new FaultyBackend();
    const mem = await MemoryStore.open("x", { backend });
    const before = backend.compactions;
    backend.eager = true;
    backend.failCompact = 1;
    await mem.add("u1", "first after the failure");
    await mem.add("u1", "second, which compacts again");
    await mem.forget("u1", { id: "none" }); // a write queued behind the compaction: it has run when this resolves
    expect(backend.compactions).toBeGreaterThan(before); // retried after the failure
    backend.eager = false;
    backend.failCompact = 1;
    await rejectsWith(mem.close(), "IO_FAILURE");
    await rejectsWith(mem.list("u1"), "STORE_CLOSED");
    // the backend was released: a new store opens on it with everything acknowledged
    const again = await MemoryStore.open("x", { backend });
    expect((await again.list("u1")).map((e) => e.content)).toEqual(["first after the failure", "second, which compacts again"]);
    await again.close();
  });

  it("supports await using", async () => {
    const backend = new MemoryBackend("dispose");
    {
      await using mem = await MemoryStore.open("d", { backend });
      await mem.add("u1", "disposed properly");
    }
    const again = await MemoryStore.open("d", { backend });
    expect(await again.list("u1")).toHaveLength(1);
    await again.close();
  });
});
