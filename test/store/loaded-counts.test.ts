// The running counts of loaded users, entries per status and estimated bytes (state/entry-counts.ts) stay exactly
// what walking the loaded users gives, across loads, unloads, evictions under maxLoadedUsers and writes (undone ones too).
// (A user's content counts in its bytes once its indexes are built: a load reads no content.)

import { describe, it, expect } from "vitest";
import type { EntryRecord, EntryStatus } from "../../src/types.ts";
import type { PersistenceBackend, UserLoading } from "../../src/persistence/backend.ts";
import { catalogOf } from "../../src/persistence/user-catalog.ts";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import { emptyCounts, entryBytes, countRecord } from "../../src/state/entry-counts.ts";
import { UserLoader } from "../../src/store/user-loading.ts";
import { statusCounts } from "../../src/store/per-user-reads.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { entryRecord } from "../helpers/entry-record.ts";

const USERS = ["ann", "bob", "cy", "dee", "eve", "fay"];
const STATUSES: EntryStatus[] = ["active", "unstructured", "deleted"];

/** What walking every loaded user's entries gives (the way the counts were computed before they were kept). */
function walked(state: EntryState): { users: number; counts: ReturnType<typeof emptyCounts> } {
  const counts = emptyCounts();
  let users = 0;
  for (const user of state.loadedUsers()) {
    users++;
    for (const record of state.entriesOf(user)) countRecord(counts, record, 1, state.indexesBuilt(user));
  }
  return { users, counts };
}

function walkedCold(state: EntryState): ReturnType<typeof emptyCounts> {
  const counts = emptyCounts();
  for (const user of state.coldUsers()) {
    counts.total += user.total;
    counts.active += user.active;
    counts.superseded += user.superseded;
    counts.deleted += user.deleted;
    counts.unstructured += user.unstructured;
  }
  return counts;
}

describe("loaded counts", () => {
  it("entryBytes grows with the content and the vector", () => {
    const plain = entryRecord({ id: "a", userId: "ann", seq: 1, content: "abcd" });
    // A live entry's vector is held once, by the vector index: dense, with room to grow (4.5 bytes a component)…
    expect(entryBytes({ ...plain, embedding: new Float32Array(8).fill(0.5) }) - entryBytes(plain)).toBe(36);
    // …or as its non-zero components (6 bytes each, 10 a vector) when at most half are set, at any number of vectors.
    expect(entryBytes({ ...plain, embedding: new Float32Array([0, 0.5, 0, 0, 0, 0, -0.5, 0]) }) - entryBytes(plain)).toBe(22);
    expect(entryBytes({ ...plain, embedding: new Float32Array([0.5, 0.5, 0, 0.5, 0, 0, -0.5, 0]) }) - entryBytes(plain)).toBe(34);
    expect(entryBytes({ ...plain, embedding: new Float32Array([0.5, 0.5, 0, 0.5, 0.5, 0, -0.5, 0]) }) - entryBytes(plain)).toBe(36);
    expect(entryBytes({ ...plain, embedding: new Float32Array(8) }) - entryBytes(plain)).toBe(10);
    // An entry not live is in no index: its record keeps its own copy (4 bytes a component).
    const deleted = { ...plain, status: "deleted" as const };
    expect(entryBytes({ ...deleted, embedding: new Float32Array(8).fill(0.5) }) - entryBytes(deleted)).toBe(32);
    expect(entryBytes({ ...plain, content: "abcdefgh" }) - entryBytes(plain)).toBe(8);
  });

  it("stay exact across random loads, unloads, evictions and writes (some undone)", async () => {
    for (let run = 0; run < 30; run++) {
      const random = seededRandom(4100 + run);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      // The "disk": every user's entries as last made durable, which a load reads back.
      const disk = new Map<string, Map<string, EntryRecord>>();
      let seq = 0;
      const fresh = (userId: string): EntryRecord => {
        seq++;
        return entryRecord({ id: `e${seq}`, userId, seq, status: pick(STATUSES), content: "x".repeat(1 + Math.floor(random() * 40)) });
      };
      for (const u of USERS.slice(0, 4)) {
        const mine = new Map<string, EntryRecord>();
        for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
          const record = fresh(u);
          mine.set(record.id, record);
        }
        disk.set(u, mine);
      }
      const backend = {
        location: "counted",
        loadUser: (userId: string) => Promise.resolve([...(disk.get(userId)?.values() ?? [])].sort((a, b) => a.seq - b.seq)),
      } as unknown as PersistenceBackend & UserLoading;
      const state = new EntryState(8);
      for (const summary of catalogOf([...disk.values()].flatMap((m) => [...m.values()]))) state.addCold(summary);
      const max = 1 + Math.floor(random() * 3);
      const loader = new UserLoader(state, backend, max);

      for (let step = 0; step < 60; step++) {
        const users = random() < 0.2 ? [pick(USERS), pick(USERS)] : [pick(USERS)];
        const action = random();
        const recall = random() < 0.3;
        await loader.use(users, () => {
          const u = users[0]!;
          const change = new Change(state, u);
          const mine = state.entriesOf(u);
          if (action < 0.35) change.insert(fresh(u));
          else if (action < 0.6 && mine.length > 0) {
            const before = pick(mine);
            change.put({ ...before, status: pick(STATUSES.filter((s) => s !== before.status)), content: before.content + "y" });
          } else if (action < 0.7) change.insert(fresh(u));
          // A write that fails to become durable is undone: its counts must go with it.
          if (action >= 0.6 && action < 0.7) change.undo();
          else {
            const own = disk.get(u) ?? new Map<string, EntryRecord>();
            for (const record of change.records()) own.set(record.id, record);
            disk.set(u, own);
          }
          // A recall builds the user's indexes, which adds its content's bytes.
          if (recall) state.shard(u);
          // Inside the call (users pinned): the counts are already exact.
          const inside = walked(state);
          expect(state.loadedCounts()).toEqual(inside.counts);
          return Promise.resolve();
        });
        const now = walked(state);
        expect(loader.loadedCount, `run ${run} step ${step}`).toBe(now.users);
        expect(state.loadedUserCount).toBe(now.users);
        expect(state.loadedCounts(), `run ${run} step ${step}`).toEqual(now.counts);
        expect(state.coldCounts()).toEqual(walkedCold(state));
        expect(now.users).toBeLessThanOrEqual(max);
        // The whole store, loaded or not, is what the "disk" holds.
        const all = [...disk.values()].flatMap((m) => [...m.values()]);
        const stats = statusCounts(state);
        expect(stats.loadedBytes).toBe(now.counts.bytes);
        expect(stats.users).toBe(new Set(all.map((r) => r.userId)).size);
        for (const status of ["active", "superseded", "deleted", "unstructured"] as const) {
          expect(stats[status], `${status}, run ${run} step ${step}`).toBe(all.filter((r) => r.status === status).length);
        }
        expect(state.size).toBe(all.length);
      }
    }
  });
});
