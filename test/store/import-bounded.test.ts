// `import` under maxLoadedUsers (README, "Many users: loading a user when asked"): it writes the entries of users not in
// memory without loading them, so the bound holds during the import and after it, and the store answers as one without a bound.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/index.ts";
import type { Batch } from "../../src/persistence/backend.ts";
import type { EntryRecord, StoreStats } from "../../src/types.ts";
import { UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { steppingClock } from "../helpers/random-ops.ts";
import { collect, objects, toLines } from "../helpers/export-lines.ts";
import { rejectsWith } from "../helpers/scripted.ts";

/** Probes the store's stats whenever a write reaches the backend (the import applied, not yet durable), and counts loads. */
class ProbedBackend extends UserLoadingMemoryBackend {
  probe: (() => Promise<StoreStats>) | null = null;
  probes: Array<Promise<StoreStats>> = [];
  loads: string[] = [];
  /** While set, appends wait for it (a write under way). */
  gate: Promise<void> | null = null;
  override async loadUser(userId: string): Promise<EntryRecord[]> {
    this.loads.push(userId);
    return super.loadUser(userId);
  }
  override async append(batches: readonly Batch[]): Promise<void> {
    if (this.probe !== null) this.probes.push(this.probe());
    if (this.gate !== null) await this.gate;
    return super.append(batches);
  }
}

const USERS = 500;

/** An export of USERS users, 3 facts each (with a superseded chain for every tenth user), made by a store without a bound. */
async function reference(): Promise<{ mem: MemoryStore; lines: string[] }> {
  const mem = await MemoryStore.open(":memory:", { clock: steppingClock() });
  for (let u = 0; u < USERS; u++) {
    await mem.addMany(`user-${u}`, [`I live in Town${u}`, `I like tea number ${u}`, `My dog is called Rex${u}`]);
    if (u % 10 === 0) await mem.add(`user-${u}`, `I live in City${u}`);
  }
  return { mem, lines: await collect(mem.export()) };
}

async function listed(mem: MemoryStore, userId: string): Promise<unknown> {
  return (await mem.list(userId, { status: "all" })).map((e) => [e.id, e.content, e.status, e.supersededBy ?? null]).sort();
}

describe("import under maxLoadedUsers", () => {
  it("loads no user for an import of 500 users into a store bounded to 10, and answers as the unbounded store", async () => {
    const { mem: ref, lines } = await reference();
    const backend = new ProbedBackend();
    const mem = await MemoryStore.open("probed", { backend, maxLoadedUsers: 10, clock: steppingClock() });
    // Three users in memory before the import: their entries go through memory, the others' do not.
    for (const u of [0, 1, 2]) await mem.add(`user-${u}`, `My car is a Volvo ${u}`);
    await ref.close();
    backend.probe = () => mem.stats();
    backend.loads = [];
    const summary = await mem.import(lines);
    backend.probe = null;
    expect(summary).toMatchObject({ users: USERS, skipped: 1 });
    const during = await Promise.all(backend.probes);
    expect(during.length).toBeGreaterThan(0);
    for (const stats of during) expect(stats.loadedUsers).toBeLessThanOrEqual(10);
    expect(backend.loads).toEqual([]);
    const after = await mem.stats();
    expect(after.loadedUsers).toBeLessThanOrEqual(10);
    expect(after.total).toBe(objects(lines).length - 1 + 3);

    // Every user answers with the imported entries (loaded from the backend on first use, ten at a time).
    const again = await MemoryStore.open(":memory:", { clock: steppingClock() });
    await again.import(lines);
    for (let u = 0; u < USERS; u += 7) {
      const expected = (await listed(again, `user-${u}`)) as unknown[];
      const got = (await listed(mem, `user-${u}`)) as unknown[];
      expect(
        got.filter((row) => !String((row as unknown[])[1]).startsWith("My car")),
        `user-${u}`,
      ).toEqual(expected);
      expect((await mem.stats()).loadedUsers).toBeLessThanOrEqual(10);
    }
    expect((await mem.recall("user-7", "where do I live")).map((h) => h.content)).toEqual(
      (await again.recall("user-7", "where do I live")).map((h) => h.content),
    );

    // Importing the same export again skips every entry, users loaded or not.
    expect(await mem.import(lines)).toMatchObject({ entries: 0, skipped: objects(lines).length });
    await again.close();
    await mem.close();
  });

  it("refuses an import clashing with an entry of a user not loaded, and changes nothing", async () => {
    const { mem: ref, lines } = await reference();
    await ref.close();
    const backend = new ProbedBackend();
    const mem = await MemoryStore.open("probed", { backend, maxLoadedUsers: 10, clock: steppingClock() });
    await mem.import(lines);
    const before = await mem.stats();
    const values = objects(lines);
    const clash = { ...values[5]!, content: "something else entirely" };
    expect((await rejectsWith(mem.import(toLines([{ ...values[0], count: 1 }, clash])), "INVALID_ARGUMENT")).message).toContain("already exists");
    // A link to another user's entry, that user not loaded.
    const target = values[5]!;
    const other = values.slice(1).find((v) => v["user_id"] !== target["user_id"])!;
    const linked = { ...other, id: "linked-1", status: "superseded", superseded_by: target["id"] };
    expect((await rejectsWith(mem.import(toLines([{ ...values[0], count: 1 }, linked])), "INVALID_ARGUMENT")).message).toContain("another user's entry");
    expect(await mem.stats()).toEqual(before);
    await mem.close();
  });

  it("a user read while an import's write is under way waits for it and sees the imported entries", async () => {
    const { mem: ref, lines } = await reference();
    await ref.close();
    const backend = new ProbedBackend();
    const mem = await MemoryStore.open("probed", { backend, maxLoadedUsers: 2, clock: steppingClock() });
    let appending!: () => void;
    const reached = new Promise<void>((r) => (appending = r));
    let open!: () => void;
    const held = new Promise<void>((r) => (open = r));
    backend.gate = held;
    backend.probe = () => {
      appending();
      return mem.stats();
    };
    const importing = mem.import(lines);
    await reached;
    backend.probe = null;
    // The import is applied (user-3 counted, not loaded) but not written yet: a read of user-3 must wait for the write.
    const reads = [mem.list("user-3", { status: "all" }), mem.recall("user-4", "tea")] as const;
    await new Promise((r) => setTimeout(r, 5));
    open();
    await importing;
    const [all, hits] = await Promise.all(reads);
    expect(all).toHaveLength(3);
    expect(hits.map((h) => h.content)).toContain("I like tea number 4");
    await mem.close();
  });
});
