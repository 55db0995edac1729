// Under maxLoadedUsers a user's first call loads the user from the backend (README, "Many users: loading a user
// when asked"). That load waits only for a write that may hold entries of THAT user and is not durable yet (an
// import writing users it does not load); a write of another user under way (a slow model judging inside it, a
// slow disk) does not delay it.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/index.ts";
import type { Batch } from "../../src/persistence/backend.ts";
import type { ConflictJudge, EntryRecord, Verdict } from "../../src/types.ts";
import { UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { steppingClock } from "../helpers/random-ops.ts";
import { collect } from "../helpers/export-lines.ts";

/** A memory backend whose appends wait at a gate while one is set, and which records the loads it serves. */
class GatedBackend extends UserLoadingMemoryBackend {
  gate: Promise<void> | null = null;
  appending: (() => void) | null = null;
  loads: string[] = [];
  #waiting = new Map<string, () => void>();
  override async loadUser(userId: string): Promise<EntryRecord[]> {
    const records = await super.loadUser(userId);
    this.loads.push(userId);
    this.#waiting.get(userId)?.();
    return records;
  }
  /** Resolves once this user was read from the backend. */
  loaded(userId: string): Promise<void> {
    return new Promise((resolve) => this.#waiting.set(userId, resolve));
  }
  override async append(batches: readonly Batch[]): Promise<void> {
    this.appending?.();
    if (this.gate !== null) await this.gate;
    return super.append(batches);
  }
}

/** A judge (a model call inside the write) that waits at a gate while one is set. */
class GatedJudge implements ConflictJudge {
  readonly name = "gated";
  gate: Promise<void> | null = null;
  judging: (() => void) | null = null;
  async judge(_fact: unknown, candidates: Array<{ id: string }>): Promise<Verdict[]> {
    this.judging?.();
    if (this.gate !== null) await this.gate;
    return candidates.map((c) => ({ id: c.id, decision: "replace" }));
  }
}

function opened(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

function signal(): { reached: Promise<void>; reach: () => void } {
  let reach!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  return { reached, reach };
}

/**
 * Whether `promise` settles while nothing else moves: given many turns of the event loop (the memory backend
 * answers in microtasks, so a call that does not wait for the blocked write settles within a few).
 */
async function settlesAlone(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let turn = 0; turn < 200 && !done; turn++) await new Promise((r) => setTimeout(r, 0));
  return done;
}

/** A backend holding users ann and bob (written by an earlier store), then a bounded store on it with nobody loaded. */
async function twoUsers(judge?: ConflictJudge): Promise<{ backend: GatedBackend; mem: MemoryStore }> {
  const backend = new GatedBackend();
  const first = await MemoryStore.open("gated", { backend, clock: steppingClock() });
  await first.add("ann", "I live in Berlin");
  await first.add("bob", "I live in Paris");
  await first.close();
  const mem = await MemoryStore.open("gated", { backend, maxLoadedUsers: 1, clock: steppingClock(), ...(judge === undefined ? {} : { judge }) });
  expect((await mem.stats()).loadedUsers).toBe(0);
  return { backend, mem };
}

describe("a user's first load beside another user's write", () => {
  it("loads while another user's write is held at the disk (append not yet durable)", async () => {
    const { backend, mem } = await twoUsers();
    const gate = opened();
    const append = signal();
    backend.gate = gate.wait;
    backend.appending = append.reach;
    const writing = mem.add("ann", "I like green tea");
    await append.reached;
    backend.loads = [];
    const bobLoaded = backend.loaded("bob");
    const recall = mem.recall("bob", "where do I live");
    // Bob is read from the backend at once; the answer then waits, as every read, until what was applied before it is
    // durable (docs/design.md, "Durable reads": one barrier for the store, a group commit's time).
    expect(await settlesAlone(bobLoaded)).toBe(true);
    expect(backend.loads).toEqual(["bob"]);
    gate.open();
    expect((await recall).map((h) => h.content)).toEqual(["I live in Paris"]);
    await writing;
    expect((await mem.list("ann")).map((e) => e.content).sort()).toEqual(["I like green tea", "I live in Berlin"]);
    await mem.close();
  });

  it("does not wait for another user's write held by a slow judge inside the write queue", async () => {
    const judge = new GatedJudge();
    const { mem } = await twoUsers(judge);
    const gate = opened();
    const judging = signal();
    judge.gate = gate.wait;
    judge.judging = judging.reach;
    const writing = mem.add("ann", "I live in Munich");
    await judging.reached;
    const reads = Promise.all([mem.recall("bob", "where do I live"), mem.list("bob"), mem.profile("bob")]);
    expect(await settlesAlone(reads)).toBe(true);
    const [hits] = await reads;
    expect(hits.map((h) => h.content)).toEqual(["I live in Paris"]);
    gate.open();
    expect((await writing).superseded).toBe(1);
    await mem.close();
  });

  it("a first call for the writing user itself still sees that user's durable state (it waits for nothing it cannot see)", async () => {
    const { backend, mem } = await twoUsers();
    const gate = opened();
    const append = signal();
    backend.gate = gate.wait;
    backend.appending = append.reach;
    const writing = mem.add("ann", "I like green tea");
    await append.reached;
    // Ann is loaded and pinned by her write: a read of her waits for the write to be durable (durable reads).
    const list = mem.list("ann");
    expect(await settlesAlone(list)).toBe(false);
    gate.open();
    await writing;
    expect((await list).map((e) => e.content).sort()).toEqual(["I like green tea", "I live in Berlin"]);
    await mem.close();
  });
});

describe("a user's first load beside an import writing users it does not load", () => {
  /** An export of cleo (2 entries) and dan (1 entry), made by another store. */
  async function exportOfCleoAndDan(): Promise<string[]> {
    const other = await MemoryStore.open(":memory:", { clock: steppingClock() });
    await other.addMany("cleo", ["I live in Rome", "I like espresso"]);
    await other.add("dan", "I live in Oslo");
    const lines = await collect(other.export());
    await other.close();
    return lines;
  }

  it("a recall of a user being imported cold waits for the import's write and sees its entries; another user's does not wait", async () => {
    const { backend, mem } = await twoUsers();
    const lines = await exportOfCleoAndDan();
    const gate = opened();
    const append = signal();
    backend.gate = gate.wait;
    backend.appending = append.reach;
    const importing = mem.import(lines);
    await append.reached;
    // Applied (cleo and dan counted, not loaded), not durable: cleo's first call must wait; bob's need not.
    backend.loads = [];
    const bobLoaded = backend.loaded("bob");
    const cleo = mem.recall("cleo", "where do I live");
    const cleoList = mem.list("cleo");
    const bob = mem.recall("bob", "where do I live");
    expect(await settlesAlone(bobLoaded)).toBe(true);
    expect(await settlesAlone(cleo)).toBe(false);
    // Cleo is not read from the backend before the import's entries are there.
    expect(backend.loads).toEqual(["bob"]);
    gate.open();
    expect((await bob).map((h) => h.content)).toEqual(["I live in Paris"]);
    expect(await importing).toMatchObject({ entries: 3, users: 2 });
    expect((await cleo).map((h) => h.content)).toContain("I live in Rome");
    expect((await cleoList).map((e) => e.content).sort()).toEqual(["I like espresso", "I live in Rome"]);
    await mem.close();
  });

  it("a load under way when the import's write applies reads the user again once the write is durable", async () => {
    // Cleo has an entry on the backend already (from an earlier store): she is in the catalog and loads from it.
    const seeded = new GatedBackend();
    const early = await MemoryStore.open("seeded", { backend: seeded, clock: steppingClock() });
    await early.add("cleo", "My dog is called Rex");
    await early.close();
    const store = await MemoryStore.open("seeded", { backend: seeded, maxLoadedUsers: 1, clock: steppingClock() });
    const lines = await exportOfCleoAndDan();
    // Cleo's load is held inside the backend's read while the import's write is planned and applied.
    const loadGate = opened();
    const loading = signal();
    const read = seeded.loadUser.bind(seeded);
    seeded.loadUser = async (userId) => {
      const records = await read(userId);
      loading.reach();
      await loadGate.wait;
      return records;
    };
    const cleo = store.list("cleo");
    await loading.reached;
    const gate = opened();
    const append = signal();
    seeded.gate = gate.wait;
    seeded.appending = append.reach;
    const importing = store.import(lines);
    await append.reached;
    loadGate.open();
    expect(await settlesAlone(cleo)).toBe(false);
    gate.open();
    await importing;
    expect((await cleo).map((e) => e.content).sort()).toEqual(["I like espresso", "I live in Rome", "My dog is called Rex"]);
    await store.close();
  });

  it("an import that fails at the disk leaves the waiting user's load with what is stored (nothing of the import)", async () => {
    const { backend, mem } = await twoUsers();
    const lines = await exportOfCleoAndDan();
    const gate = opened();
    const append = signal();
    let fail!: (e: Error) => void;
    backend.gate = new Promise<void>((_, reject) => (fail = reject));
    backend.appending = append.reach;
    const importing = mem.import(lines);
    await append.reached;
    const cleo = mem.list("cleo");
    expect(await settlesAlone(cleo)).toBe(false);
    fail(new Error("disk full"));
    await expect(importing).rejects.toThrow(/disk full/);
    gate.open();
    expect(await cleo).toEqual([]);
    expect((await mem.users()).map((u) => u.userId)).toEqual(["ann", "bob"]);
    await mem.close();
  });
});
