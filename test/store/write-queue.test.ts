// WriteQueue on its own, against a backend whose appends the test holds, fails or lets through: group commit, rollback, barriers, exclusive sections.

import { describe, it, expect } from "vitest";
import { WriteQueue, MAX_BATCH_ENTRIES } from "../../src/store/write-queue.ts";
import { EntryState, type Change } from "../../src/state/entry-state.ts";
import type { Batch, BackendStats, LoadedState, PersistenceBackend } from "../../src/persistence/backend.ts";
import type { EntryRecord } from "../../src/types.ts";
import { MoomemError } from "../../src/errors.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { rejectsWith } from "../helpers/scripted.ts";
import { entryRecord } from "../helpers/entry-record.ts";

const DIM = 4;

function rec(id: string, seq: number, userId = "ann", extra: Partial<EntryRecord> = {}): EntryRecord {
  return entryRecord({
    id,
    userId,
    seq,
    content: `apple ${id}`,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    embedding: Float32Array.of(1, 0.5, 0.25, seq % 7),
    ...extra,
  });
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback and zero-delay timer run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 0));
}

/** A backend whose every append waits until the test resolves or rejects it. */
class HeldBackend implements PersistenceBackend {
  readonly location = "held-backend";
  readonly calls: Array<{ batches: Batch[] } & Deferred> = [];
  load(): Promise<LoadedState> {
    return Promise.resolve({ entries: [], embedder: null, truncatedRecovered: 0, formatVersion: 3, lastWriteAt: null });
  }
  append(batches: readonly Batch[]): Promise<void> {
    const held = deferred();
    this.calls.push({ batches: [...batches], ...held });
    return held.promise;
  }
  /** Ids per batch of append call `i`. */
  ids(i: number): string[][] {
    return this.calls[i]!.batches.map((b) => b.entries.map((e) => e.id));
  }
  wantsCompaction(): boolean {
    return false;
  }
  compact(): Promise<void> {
    return Promise.resolve();
  }
  stats(): BackendStats {
    return { bytesOnDisk: 0, lastWriteAt: null };
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Records how a promise ended, without awaiting it. */
function watch<T>(promise: Promise<T>): { state: "pending" | "resolved" | "rejected"; value?: T; error?: unknown } {
  const seen: { state: "pending" | "resolved" | "rejected"; value?: T; error?: unknown } = { state: "pending" };
  promise.then(
    (value) => Object.assign(seen, { state: "resolved", value }),
    (error: unknown) => Object.assign(seen, { state: "rejected", error }),
  );
  return seen;
}

/** What the state holds, comparable with toEqual: every entry, and what each user's indexes find. */
function picture(state: EntryState): unknown {
  return [...state.all()].map((r) => {
    const shard = state.shard(r.userId)!;
    return {
      id: r.id,
      status: r.status,
      content: r.content,
      supersededBy: r.supersededBy,
      keywords: shard.keywords.has(r.seq),
      vector: shard.vectors.has(r.seq),
      dedup: shard.dedup.get(r.content)?.includes(r.id) ?? false,
    };
  });
}

function setup(): { state: EntryState; backend: HeldBackend; queue: WriteQueue; groups: () => number } {
  const state = new EntryState(DIM);
  const backend = new HeldBackend();
  let groups = 0;
  const queue = new WriteQueue(state, backend, () => groups++);
  return { state, backend, queue, groups: () => groups };
}

describe("WriteQueue: group commit", () => {
  it("operations computed while a group is written see it, wait, and go out together in the next group", async () => {
    const { state, backend, queue, groups } = setup();
    const a = watch(queue.write(async (change) => change.insert(rec("a", 1))));
    await settle();
    expect(backend.calls.length).toBe(1);
    expect(backend.ids(0)).toEqual([["a"]]);

    let bSaw: string | undefined;
    const b = watch(
      queue.write(async (change) => {
        bSaw = state.get("a")?.status;
        change.insert(rec("b", 2));
        change.put({ ...state.get("a")!, status: "superseded", supersededBy: "b" });
        return "b";
      }),
    );
    const c = watch(queue.write(async (change) => (change.insert(rec("c", 3)), "c")));
    await settle();
    // Both computed on top of the group in flight (b saw a), neither written yet, nothing acknowledged.
    expect(bSaw).toBe("active");
    expect(state.get("a")!.status).toBe("superseded");
    expect(backend.calls.length).toBe(1);
    expect([a.state, b.state, c.state]).toEqual(["pending", "pending", "pending"]);
    expect(groups()).toBe(0);

    backend.calls[0]!.resolve();
    await settle();
    expect([a.state, b.state, c.state]).toEqual(["resolved", "pending", "pending"]);
    expect(groups()).toBe(1);
    // One append for both: b's batch (its new entry and a's new version), then c's.
    expect(backend.calls.length).toBe(2);
    expect(backend.ids(1)).toEqual([["b", "a"], ["c"]]);

    backend.calls[1]!.resolve();
    await settle();
    expect([b.state, c.state, b.value, c.value]).toEqual(["resolved", "resolved", "b", "c"]);
    expect(groups()).toBe(2);
    expect(queue.barrier()).toBeNull();
  });

  it("splits an operation of more than 512 entries into batches chained by `continues`, in one append", async () => {
    const { backend, queue } = setup();
    expect(MAX_BATCH_ENTRIES).toBe(512);
    const big = watch(
      queue.write(async (change) => {
        for (let i = 1; i <= 1100; i++) change.insert(rec(`big${i}`, i));
      }),
    );
    await settle();
    expect(backend.calls.length).toBe(1);
    expect(backend.calls[0]!.batches.map((b) => [b.entries.length, b.continues ?? false])).toEqual([
      [512, true],
      [512, true],
      [76, false],
    ]);
    // Two operations in one group: each one's run of batches ends without `continues`.
    const one = watch(queue.write(async (change) => void Array.from({ length: 600 }, (_, i) => change.insert(rec(`one${i}`, 2000 + i)))));
    const two = watch(queue.write(async (change) => change.insert(rec("two", 3000))));
    await settle();
    backend.calls[0]!.resolve();
    await settle();
    expect(big.state).toBe("resolved");
    expect(backend.calls[1]!.batches.map((b) => [b.entries.length, b.continues ?? false])).toEqual([
      [512, true],
      [88, false],
      [1, false],
    ]);
    backend.calls[1]!.resolve();
    await settle();
    expect([one.state, two.state]).toEqual(["resolved", "resolved"]);
  });

  it("an operation that changes nothing resolves without an append and without counting as a group", async () => {
    const { backend, queue, groups } = setup();
    await expect(queue.write(async () => 7)).resolves.toBe(7);
    expect(backend.calls.length).toBe(0);
    expect(groups()).toBe(0);
  });
});

describe("WriteQueue: a failed group is never visible", () => {
  it("undoes the failed group and everything computed on top of it, last first, and rejects each with IO_FAILURE", async () => {
    const { state, backend, queue, groups } = setup();
    const z = watch(queue.write(async (change) => change.insert(rec("z", 1, "ann", { content: "zebra" }))));
    await settle();
    backend.calls[0]!.resolve();
    await settle();
    expect(z.state).toBe("resolved");
    const before = picture(state);

    const a = watch(queue.write(async (change) => change.insert(rec("a", 2))));
    // b supersedes the durable z by its new entry; c then changes b's entry: undoing them out of order
    // would try to put back a version of b after b was removed.
    const b = watch(
      queue.write(async (change) => {
        change.insert(rec("b", 3));
        change.put({ ...state.get("z")!, status: "superseded", supersededBy: "b" });
      }),
    );
    const c = watch(queue.write(async (change) => change.put({ ...state.get("b")!, content: "banana", status: "deleted" })));
    await settle();
    expect(backend.calls.length).toBe(2);
    expect(state.get("b")!.status).toBe("deleted");

    const failure = new Error("ENOSPC: no space left on device");
    backend.calls[1]!.reject(failure);
    await settle();
    expect([a.state, b.state, c.state]).toEqual(["rejected", "rejected", "rejected"]);
    for (const seen of [a, b, c]) {
      expect(seen.error).toBeInstanceOf(MoomemError);
      expect((seen.error as MoomemError).code).toBe("IO_FAILURE");
      expect((seen.error as MoomemError).message).toContain("held-backend");
      expect((seen.error as MoomemError).message).toContain("nothing of this write was kept");
      expect((seen.error as MoomemError).cause).toBe(failure);
    }
    expect(picture(state)).toEqual(before);
    expect(state.get("a")).toBeUndefined();
    expect(groups()).toBe(1);
    // b and c were never handed to the backend.
    expect(backend.calls.length).toBe(2);

    // The queue goes on: the next write is computed on the clean state and written alone.
    const d = watch(queue.write(async (change) => change.insert(rec("d", 5))));
    await settle();
    expect(backend.ids(2)).toEqual([["d"]]);
    backend.calls[2]!.resolve();
    await settle();
    expect(d.state).toBe("resolved");
    expect([...state.all()].map((r) => r.id)).toEqual(["z", "d"]);
  });

  it("an operation still computing when its base fails is finished, then undone with it (it never sees the base vanish)", async () => {
    const { state, backend, queue } = setup();
    const a = watch(queue.write(async (change) => change.insert(rec("a", 1))));
    await settle();
    const gate = deferred();
    const saw: Array<string | undefined> = [];
    const b = watch(
      queue.write(async (change) => {
        saw.push(state.get("a")?.id);
        await gate.promise;
        saw.push(state.get("a")?.id);
        change.insert(rec("b", 2));
        change.put({ ...state.get("a")!, status: "superseded", supersededBy: "b" });
      }),
    );
    await settle();
    backend.calls[0]!.reject(new Error("EIO"));
    await settle();
    // a's undo waits for b, which is computing on top of it.
    expect(a.state).toBe("pending");
    gate.resolve();
    await settle();
    expect(saw).toEqual(["a", "a"]);
    expect([a.state, b.state]).toEqual(["rejected", "rejected"]);
    expect(state.size).toBe(0);
    expect(state.shard("ann")).toBeUndefined();
    expect(backend.calls.length).toBe(1);
  });

  it("passes a MoomemError from the backend through as it is", async () => {
    const { backend, queue } = setup();
    const p = queue.write(async (change) => change.insert(rec("a", 1)));
    await settle();
    const locked = new MoomemError("STORE_LOCKED", "lost its writer lock");
    backend.calls[0]!.reject(locked);
    await expect(p).rejects.toBe(locked);
  });
});

describe("WriteQueue: errors reach the right promise", () => {
  it("an operation that throws rejects with its own error, leaves no trace, and does not touch the operations around it", async () => {
    const { state, backend, queue } = setup();
    const a = watch(queue.write(async (change) => change.insert(rec("a", 1))));
    const own = new Error("the judge broke");
    const b = watch(
      queue.write(async (change) => {
        change.insert(rec("b", 2));
        change.put({ ...state.get("a")!, status: "deleted" });
        throw own;
      }),
    );
    const c = watch(queue.write(async (change) => change.insert(rec("c", 3))));
    await settle();
    expect(b.state).toBe("rejected");
    expect(b.error).toBe(own);
    expect(state.get("b")).toBeUndefined();
    expect(state.get("a")!.status).toBe("active");
    backend.calls[0]!.resolve();
    await settle();
    backend.calls[1]!.resolve();
    await settle();
    expect([a.state, c.state]).toEqual(["resolved", "resolved"]);
    expect(backend.calls.flatMap((call) => call.batches.flatMap((batch) => batch.entries.map((e) => `${e.id}:${e.status}`)))).toEqual(["a:active", "c:active"]);
  });

  it("an operation whose change links an entry to another user's is refused and undone", async () => {
    const { state, backend, queue } = setup();
    const setupWrite = queue.write(async (change) => {
      change.insert(rec("a", 1, "ann"));
      change.insert(rec("b", 2, "bob"));
    });
    await settle();
    backend.calls[0]!.resolve();
    await setupWrite;
    const before = picture(state);
    const crossing = watch(queue.write(async (change) => change.put({ ...state.get("b")!, status: "superseded", supersededBy: "a" })));
    await settle();
    expect(crossing.state).toBe("rejected");
    expect((crossing.error as MoomemError).code).toBe("INVALID_ARGUMENT");
    expect(picture(state)).toEqual(before);
    expect(backend.calls.length).toBe(1);
  });
});

describe("WriteQueue: barriers and exclusive sections", () => {
  it("barrier() is null when idle, and settles true once everything applied so far is durable, false once rolled back", async () => {
    const { backend, queue } = setup();
    expect(queue.barrier()).toBeNull();
    void queue.write(async (change) => change.insert(rec("a", 1)));
    await settle();
    const first = queue.barrier()!;
    const firstSeen = watch(first);
    const b = watch(queue.write(async (change) => change.insert(rec("b", 2))));
    await settle();
    const both = queue.barrier()!;
    const bothSeen = watch(both);
    backend.calls[0]!.resolve();
    await settle();
    expect(firstSeen).toMatchObject({ state: "resolved", value: true });
    // b is in the next group, still being written.
    expect(bothSeen.state).toBe("pending");
    backend.calls[1]!.reject(new Error("EIO"));
    await settle();
    expect(bothSeen).toMatchObject({ state: "resolved", value: false });
    expect(b.state).toBe("rejected");
    expect(queue.barrier()).toBeNull();
  });

  it("a read taken before a rollback is read again (the store's durable-read loop), and then misses the undone write", async () => {
    const { state, backend, queue } = setup();
    const a = queue.write(async (change) => change.insert(rec("a", 1)));
    await settle();
    const reads: boolean[] = [];
    const durableRead = (async () => {
      for (;;) {
        const barrier = queue.barrier();
        const value = state.get("a") !== undefined;
        reads.push(value);
        if (barrier === null || (await barrier)) return value;
      }
    })();
    backend.calls[0]!.reject(new Error("EIO"));
    await rejectsWith(a, "IO_FAILURE");
    expect(await durableRead).toBe(false);
    expect(reads).toEqual([true, false]);
  });

  it("drained() waits until nothing is staged: durable or rolled back", async () => {
    const { backend, queue } = setup();
    void queue.write(async (change) => change.insert(rec("a", 1))).catch(() => undefined);
    await settle();
    void queue.write(async (change) => change.insert(rec("b", 2))).catch(() => undefined);
    await settle();
    const drained = watch(queue.drained());
    backend.calls[0]!.resolve();
    await settle();
    expect(drained.state).toBe("pending");
    backend.calls[1]!.reject(new Error("EIO"));
    await settle();
    expect(drained.state).toBe("resolved");
    expect(queue.barrier()).toBeNull();
  });

  it("an exclusive section runs once every earlier write is durable, alone, and its failure is its own", async () => {
    const { state, backend, queue } = setup();
    const events: string[] = [];
    const a = watch(queue.write(async (change) => (events.push("a computed"), change.insert(rec("a", 1)))));
    const b = watch(queue.write(async (change) => (events.push("b computed"), change.insert(rec("b", 2)))));
    const gate = deferred();
    const section = watch(
      queue.exclusive(async () => {
        events.push(`section starts; a ${a.state}, b ${b.state}, appends ${backend.calls.length}`);
        await gate.promise;
        events.push("section ends");
        return state.size;
      }),
    );
    const c = watch(queue.write(async (change) => (events.push("c computed"), change.insert(rec("c", 3)))));
    await settle();
    backend.calls[0]!.resolve();
    await settle();
    backend.calls[1]!.resolve();
    await settle();
    expect(events).toEqual(["a computed", "b computed", "section starts; a resolved, b resolved, appends 2"]);
    gate.resolve();
    await settle();
    expect(events.slice(3)).toEqual(["section ends", "c computed"]);
    expect(section).toMatchObject({ state: "resolved", value: 2 });
    backend.calls[2]!.resolve();
    await settle();
    expect(c.state).toBe("resolved");

    // A failing section rejects its own promise only; the queue goes on.
    const broken = new Error("compaction failed");
    const failing = watch(queue.exclusive(() => Promise.reject(broken)));
    const d = queue.write(async (change) => change.insert(rec("d", 4)));
    await settle();
    expect(failing).toMatchObject({ state: "rejected", error: broken });
    backend.calls[3]!.resolve();
    await d;
  });

  it("an exclusive section queued behind a failing group runs after the rollback, on the state without it", async () => {
    const { state, backend, queue } = setup();
    const a = queue.write(async (change) => change.insert(rec("a", 1)));
    const section = queue.exclusive(async () => [...state.all()].map((r) => r.id));
    await settle();
    backend.calls[0]!.reject(new Error("EIO"));
    await rejectsWith(a, "IO_FAILURE");
    expect(await section).toEqual([]);
  });
});

describe("WriteQueue against a replay of what the backend kept (seeded, bounded by runs)", () => {
  /** Appends after a few scheduling turns; some fail. Keeps what it accepted, as a journal would. */
  class FlakyBackend extends HeldBackend {
    readonly kept = new Map<string, EntryRecord>();
    readonly #rand: () => number;
    constructor(rand: () => number) {
      super();
      this.#rand = rand;
    }
    override async append(batches: readonly Batch[]): Promise<void> {
      expect(batches.at(-1)?.continues).toBeFalsy();
      const turns = Math.floor(this.#rand() * 4);
      for (let i = 0; i < turns; i++) await (this.#rand() < 0.5 ? Promise.resolve() : new Promise((r) => setTimeout(r, 0)));
      if (this.#rand() < 0.15) throw this.#rand() < 0.5 ? new MoomemError("IO_FAILURE", "injected EIO") : new Error("injected ENOSPC");
      for (const batch of batches) for (const entry of batch.entries) this.kept.set(entry.id, entry);
    }
  }

  /** Whether `promise` settles within 200 scheduling turns (counted, not timed: a stuck queue fails fast on any machine). */
  async function settlesWithin(promise: Promise<unknown>): Promise<boolean> {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let turn = 0; turn < 200 && !settled; turn++) await new Promise((r) => setTimeout(r, 0));
    return settled;
  }

  /** Over all runs: how many writes were acknowledged and how many rejected (both must happen for the test to mean anything). */
  const tally = { acknowledged: 0, rejected: 0 };

  async function run(seed: number): Promise<void> {
    const rand = seededRandom(seed);
    const state = new EntryState(DIM);
    const backend = new FlakyBackend(rand);
    const queue = new WriteQueue(state, backend, () => undefined);
    const users = ["ann", "bob"];
    let next = 1;
    const outcomes: Array<Promise<void>> = [];
    const acknowledgedButLost: string[] = [];
    const liveOf = (userId: string): EntryRecord[] => state.entriesOf(userId).filter((r) => r.status === "active");

    const op = async (change: Change): Promise<string[]> => {
      const written: string[] = [];
      const steps = 1 + Math.floor(rand() * 3);
      for (let i = 0; i < steps; i++) {
        if (rand() < 0.3) await (rand() < 0.5 ? Promise.resolve() : new Promise((r) => setTimeout(r, 0)));
        const userId = users[Math.floor(rand() * users.length)]!;
        const live = liveOf(userId);
        const choice = rand();
        if (choice < 0.5 || live.length < 2) {
          const seq = next++;
          change.insert(rec(`e${seq}`, seq, userId, { content: `apple ${seq % 5}` }));
          written.push(`e${seq}`);
        } else if (choice < 0.8) {
          const [old, by] = [live[Math.floor(rand() * live.length)]!, live[Math.floor(rand() * live.length)]!];
          if (old.id === by.id) continue;
          change.put({ ...old, status: "superseded", supersededBy: by.id });
          written.push(old.id);
        } else {
          const victim = live[Math.floor(rand() * live.length)]!;
          change.put({ ...victim, status: "deleted" });
          written.push(victim.id);
        }
      }
      if (rand() < 0.1) throw new Error("the operation failed");
      return written;
    };

    const rounds = 6 + Math.floor(rand() * 6);
    for (let round = 0; round < rounds; round++) {
      const burst = 1 + Math.floor(rand() * 5);
      for (let i = 0; i < burst; i++) {
        outcomes.push(
          queue.write(op).then(
            (ids) => {
              // Acknowledged only once durable: every entry it wrote is in what the backend kept.
              for (const id of ids) if (!backend.kept.has(id)) acknowledgedButLost.push(id);
              tally.acknowledged++;
            },
            () => void tally.rejected++,
          ),
        );
      }
      if (rand() < 0.3) {
        let sectionRan = false;
        const section = queue.exclusive(() => Promise.resolve((sectionRan = true)));
        expect(await settlesWithin(section), "an exclusive section settled").toBe(true);
        expect(sectionRan).toBe(true);
      }
      const turns = Math.floor(rand() * 4);
      for (let i = 0; i < turns; i++) await new Promise((r) => setTimeout(r, 0));
    }
    // Every write settles (resolves or rejects): a queue that lost track of an operation would leave its
    // caller waiting forever.
    expect(await settlesWithin(Promise.all(outcomes)), "every write settled").toBe(true);
    expect(acknowledgedButLost).toEqual([]);
    expect(await settlesWithin(queue.drained()), "the queue drained").toBe(true);
    expect(queue.barrier()).toBeNull();
    // Nothing that failed is visible: the live state is exactly a replay of what the backend kept, indexes included.
    const replayed = new EntryState(DIM);
    for (const record of [...backend.kept.values()].sort((x, y) => x.seq - y.seq)) replayed.load(record);
    expect(picture(state)).toEqual(picture(replayed));
    expect([...state.all()]).toEqual([...replayed.all()]);
  }

  it("after bursts of writes with random failures, the state equals the backend's replay and every acknowledged write is in it", async () => {
    for (let seed = 1; seed <= 60; seed++) {
      try {
        await run(seed);
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`, { cause: error });
      }
    }
    expect(tally.acknowledged).toBeGreaterThan(500);
    expect(tally.rejected).toBeGreaterThan(100);
  });
});
