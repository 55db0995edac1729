// `export()` of every user of a store that loads users when asked (README, "Export and import"): it goes user by user
// without holding the write queue, writes made meanwhile complete before it ends, and it still gives the store as it
// was when it started (copy on write), so its header's count is exact and it re-imports cleanly.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/index.ts";
import type { EntryRecord } from "../../src/types.ts";
import { UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { steppingClock } from "../helpers/random-ops.ts";
import { collect, objects } from "../helpers/export-lines.ts";

/** Holds scan() (a whole-store read) and the load of one user until released. */
class GatedBackend extends UserLoadingMemoryBackend {
  gate: Promise<void> | null = null;
  heldUser = "";
  loadedDuringExport: string[] = [];
  override async loadUser(userId: string): Promise<EntryRecord[]> {
    this.loadedDuringExport.push(userId);
    if (this.gate !== null && userId === this.heldUser) await this.gate;
    return super.loadUser(userId);
  }
  override async *scan(): AsyncGenerator<EntryRecord, void, undefined> {
    if (this.gate !== null) await this.gate;
    yield* super.scan();
  }
}

const USERS = 60;
const name = (u: number): string => `user-${String(u).padStart(3, "0")}`;

async function filled(): Promise<GatedBackend> {
  const backend = new GatedBackend();
  const mem = await MemoryStore.open("gated", { backend, clock: steppingClock() });
  for (let u = 0; u < USERS; u++) await mem.addMany(name(u), [`I live in Town${u}`, `I like tea number ${u}`]);
  await mem.close();
  return backend;
}

describe("export of every user, streamed", () => {
  it("lets writes complete while it runs, gives the store as it was when it started, and re-imports cleanly", async () => {
    const backend = await filled();
    const mem = await MemoryStore.open("gated", { backend, maxLoadedUsers: 4, clock: steppingClock() });
    const before = await collect(mem.export());
    let release!: () => void;
    backend.gate = new Promise<void>((r) => (release = r));
    backend.heldUser = name(30);
    backend.loadedDuringExport = [];

    const lines: string[] = [];
    const iterator = mem.export()[Symbol.asyncIterator]();
    // The header and the first users' lines come before the held user.
    for (let i = 0; i < 1 + 2 * 10; i++) lines.push((await iterator.next()).value as string);
    const rest = (async () => {
      for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) lines.push(r.value);
    })();
    // While the export waits on user-030: writes to users it has written, has not written yet, and to a new user.
    const writes = await Promise.all([
      mem.add(name(2), "I moved to Lisbon"),
      mem.add(name(45), "I moved to Quito"),
      mem.forget(name(50), { all: true }),
      mem.add("user-new", "I love chess"),
    ]);
    expect(writes[1]).toMatchObject({ inserted: 1 });
    // The writes are done and the export is not: only now is the held user let go.
    expect(lines.length).toBeLessThan(before.length);
    release();
    await rest;

    // The store as it was at the start: same lines as the export taken before the writes (exported_at aside).
    expect(objects(lines).slice(1)).toEqual(objects(before).slice(1));
    expect(objects(lines)[0]).toMatchObject({ count: 2 * USERS });
    // Never more users in memory than the bound, and each loaded only for its turn.
    expect((await mem.stats()).loadedUsers).toBeLessThanOrEqual(4);

    // It re-imports cleanly, and a later export has the writes.
    const copy = await MemoryStore.open(":memory:", { clock: steppingClock() });
    expect(await copy.import(lines)).toMatchObject({ entries: 2 * USERS, users: USERS });
    const after = objects(await collect(mem.export()));
    expect(after[0]).toMatchObject({ count: 2 * USERS + 3 });
    expect(after.filter((o) => o["user_id"] === name(50)).every((o) => o["status"] === "deleted")).toBe(true);
    await copy.close();
    const later = await MemoryStore.open(":memory:", { clock: steppingClock() });
    expect(await later.import(after.map((o) => JSON.stringify(o) + "\n"))).toMatchObject({ entries: 2 * USERS + 3, users: USERS + 1 });
    await later.close();
    await mem.close();
  });

  it("an export abandoned half way stops keeping copies (later writes and exports are unaffected)", async () => {
    const backend = await filled();
    const mem = await MemoryStore.open("gated", { backend, maxLoadedUsers: 4, clock: steppingClock() });
    for await (const line of mem.export()) {
      if (line.includes(name(3))) break;
    }
    await mem.add(name(40), "I moved to Oslo");
    const lines = await collect(mem.export());
    expect(objects(lines)[0]).toMatchObject({ count: 2 * USERS + 1 });
    await mem.close();
  });
});
