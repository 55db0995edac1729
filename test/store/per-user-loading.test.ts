// Per-user loading and the memory bound (README, "Many users: loading a user when asked"): a store that loads
// users when asked, and unloads them under `maxLoadedUsers`, answers exactly as one that holds every user.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/index.ts";
import type { Batch } from "../../src/persistence/backend.ts";
import type { EntryRecord } from "../../src/types.ts";
import { MemoryBackend, UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { rejectsWith } from "../helpers/scripted.ts";
import { T0, comparableExport, randomOp, steppingClock } from "../helpers/random-ops.ts";

/** Counts loadUser calls, and can hold them (so calls pile up on a user being loaded) or its appends. */
class WatchedBackend extends UserLoadingMemoryBackend {
  loads: string[] = [];
  holdLoads: Promise<void> | null = null;
  holdAppends: Promise<void> | null = null;
  override async loadUser(userId: string): Promise<EntryRecord[]> {
    this.loads.push(userId);
    if (this.holdLoads !== null) await this.holdLoads;
    return super.loadUser(userId);
  }
  override async append(batches: readonly Batch[]): Promise<void> {
    if (this.holdAppends !== null) await this.holdAppends;
    return super.append(batches);
  }
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe("per-user loading", () => {
  it("with at most 2 users loaded, random calls answer exactly as a store holding every user", async () => {
    for (let run = 0; run < 12; run++) {
      const random = seededRandom(1700 + run);
      // One time for every store at each step, however often each reads it.
      let now = T0;
      const clock = { now: () => now };
      const reference = await MemoryStore.open(":memory:", { clock });
      const bounded = await MemoryStore.open(":memory:", { clock, maxLoadedUsers: 2 });
      for (let step = 0; step < 80; step++) {
        now += 1000;
        const op = randomOp(random);
        const expected = await op.run(reference);
        expect(await op.run(bounded), `run ${run} step ${step}: ${op.name}`).toEqual(expected);
        expect((await bounded.stats()).loadedUsers).toBeLessThanOrEqual(2);
      }
      const exported = async (mem: MemoryStore): Promise<unknown> => {
        const lines: string[] = [];
        for await (const line of mem.export()) lines.push(line);
        return comparableExport(lines);
      };
      expect(await exported(bounded)).toEqual(await exported(reference));
      await reference.close();
      await bounded.close();
    }
  });

  it("opens without loading anyone, and concurrent calls for a user being loaded share one load", async () => {
    const backend = new WatchedBackend();
    const first = await MemoryStore.open("watched", { backend, clock: steppingClock() });
    await first.add("ann", "I live in Berlin");
    await first.add("bob", "I love tea");
    await first.close();
    backend.loads = [];
    const held = gate();
    backend.holdLoads = held.promise;
    const mem = await MemoryStore.open("watched", { backend, clock: steppingClock() });
    expect(backend.loads).toEqual([]);
    // Counts come from the catalog: nobody is loaded for them.
    expect(await mem.stats()).toMatchObject({ total: 2, users: 2, loadedUsers: 0 });
    expect((await mem.users()).map((u) => u.userId)).toEqual(["ann", "bob"]);
    const calls = [mem.recall("ann", "where do I live"), mem.list("ann"), mem.profile("ann"), mem.add("ann", "I love coffee"), mem.recall("ann", "Berlin")];
    await Promise.resolve();
    held.open();
    const [hits, list, , added, again] = await Promise.all(calls);
    expect(backend.loads).toEqual(["ann"]);
    expect((hits as { content: string }[])[0]!.content).toContain("Berlin");
    expect((list as unknown[]).length).toBe(1);
    expect((added as { inserted: number }).inserted).toBe(1);
    expect((again as unknown[]).length).toBeGreaterThan(0);
    expect(await mem.stats()).toMatchObject({ total: 3, users: 2, loadedUsers: 1 });
    await mem.close();
  });

  it("never unloads a user whose write is not durable yet, and a load that fails leaves the user unloaded to try again", async () => {
    const backend = new WatchedBackend();
    const mem = await MemoryStore.open("watched", { backend, clock: steppingClock(), maxLoadedUsers: 1 });
    await mem.add("ann", "I live in Berlin");
    const held = gate();
    backend.holdAppends = held.promise;
    const pending = mem.add("ann", "I love coffee");
    // Other users come and go while ann's write waits for the backend.
    for (const user of ["bob", "cy", "dee"]) expect(await mem.list(user)).toEqual([]);
    await new Promise((r) => setTimeout(r, 5));
    held.open();
    backend.holdAppends = null;
    expect((await pending).inserted).toBe(1);
    await mem.add("bob", "I love tea");
    await mem.add("cy", "I love dogs");
    expect((await mem.list("ann")).map((e) => e.content)).toEqual(["I live in Berlin", "I love coffee"]);
    expect((await mem.stats()).loadedUsers).toBe(1);
    await mem.close();

    const failing = new WatchedBackend();
    const store = await MemoryStore.open("failing", { backend: failing, clock: steppingClock() });
    await store.add("ann", "I live in Paris");
    await store.close();
    const broken = gate();
    failing.holdLoads = Promise.reject(new Error("disk went away"));
    failing.holdLoads.catch(() => undefined);
    const reopened = await MemoryStore.open("failing", { backend: failing, clock: steppingClock() });
    await rejectsWith(reopened.list("ann"), "IO_FAILURE");
    failing.holdLoads = broken.promise;
    broken.open();
    expect((await reopened.list("ann")).map((e) => e.content)).toEqual(["I live in Paris"]);
    await reopened.close();
  });

  it("checks maxLoadedUsers like every option", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, "2", null, 2e9]) {
      const error = await rejectsWith(MemoryStore.open(":memory:", { maxLoadedUsers: bad as number }), "INVALID_ARGUMENT");
      expect(error.message).toContain("maxLoadedUsers");
    }
    // A backend that reads the whole store at open cannot be bounded; neither can a read-only store.
    const plain = await rejectsWith(MemoryStore.open("x", { backend: new MemoryBackend(), maxLoadedUsers: 3 }), "INVALID_ARGUMENT");
    expect(plain.message).toMatch(/maxLoadedUsers \(3\) needs a backend that loads users when asked/);
  });
});
