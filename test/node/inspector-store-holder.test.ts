// The inspector's StoreHolder over real files: catching up with a writer, lending a store safely across a swap, surviving a failed catch-up.

import { describe, it, expect, afterEach } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { MoomemError } from "../../src/errors.ts";
import { StoreHolder } from "../../src/inspector/store-holder.ts";
import { storeFingerprint } from "../../src/inspector/catch-up.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function tempDir(): string {
  const dir = makeTempDir("ui-holder");
  dirs.push(dir);
  return dir;
}

/** A holder that counts its opens and can be told to fail the next one. */
function holderOptions(dir: string): { opens: number; failNext: boolean; options: Parameters<typeof StoreHolder.open>[0] } {
  const state = {
    opens: 0,
    failNext: false,
    options: {
      dir,
      writable: false,
      open: async () => {
        state.opens++;
        if (state.failNext) {
          state.failNext = false;
          throw new MoomemError("STORE_CORRUPTED", "injected: the journal could not be read");
        }
        return MemoryStore.open(dir, { readOnly: true });
      },
    },
  };
  return state;
}

describe("StoreHolder (follow mode)", () => {
  it("sees what a writer committed, and only reopens when the files changed", async () => {
    const dir = tempDir();
    const writer = await MemoryStore.open(dir);
    await writer.add("u1", "I like tea");
    const state = holderOptions(dir);
    const holder = await StoreHolder.open(state.options);
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(1);
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(1);
    expect(state.opens).toBe(1);
    expect(holder.generation).toBe(1);

    await writer.add("u1", "I play chess");
    expect((await holder.use((s) => s.list("u1"))).map((e) => e.content)).toEqual(["I like tea", "I play chess"]);
    expect(state.opens).toBe(2);
    expect(holder.generation).toBe(2);
    expect(holder.followState()).toMatchObject({ mode: "follow", generation: 2, lastError: null });
    expect(holder.followState().changedAt).not.toBeNull();

    // Nothing new: no reopen, same generation.
    await holder.use((s) => s.stats());
    expect(state.opens).toBe(2);
    await writer.close();
    await holder.close();
  });

  it("keeps a store it lent open until the request is done, even when a catch-up replaced it meanwhile", async () => {
    const dir = tempDir();
    const writer = await MemoryStore.open(dir);
    await writer.add("u1", "first");
    const holder = await StoreHolder.open(holderOptions(dir).options);
    let release!: () => void;
    let leased!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started = new Promise<void>((resolve) => (leased = resolve));
    const slow = holder.use(async (store) => {
      leased();
      await gate;
      // Still usable although a newer instance took its place.
      return store.list("u1");
    });
    await started;
    await writer.add("u1", "second");
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(2);
    release();
    expect(await slow).toHaveLength(1);
    await writer.close();
    await holder.close();
  });

  it("a failed catch-up keeps serving the last state, says why, and succeeds on the next request", async () => {
    const dir = tempDir();
    const writer = await MemoryStore.open(dir);
    await writer.add("u1", "first");
    const state = holderOptions(dir);
    const holder = await StoreHolder.open(state.options);
    await writer.add("u1", "second");
    state.failNext = true;
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(1);
    expect(holder.followState().lastError).toContain("injected: the journal could not be read");
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(2);
    expect(holder.followState().lastError).toBeNull();
    await writer.close();
    await holder.close();
  });

  it("a folder with no store yet is followed until one appears", async () => {
    const dir = tempDir();
    expect(await storeFingerprint(dir)).toBe("no store yet");
    const holder = await StoreHolder.open(holderOptions(dir).options);
    expect(await holder.use((s) => s.users())).toEqual([]);
    const writer = await MemoryStore.open(dir);
    await writer.add("newcomer", "I keep bees on the roof");
    expect(await holder.use((s) => s.users())).toMatchObject([{ userId: "newcomer", total: 1 }]);
    await writer.close();
    await holder.close();
  });

  it("the writer's lock file alone is not a change", async () => {
    const dir = tempDir();
    const first = await MemoryStore.open(dir);
    await first.add("u1", "x");
    await first.close();
    const before = await storeFingerprint(dir);
    const again = await MemoryStore.open(dir); // takes the lock; writes nothing until an add
    const during = await storeFingerprint(dir);
    await again.close();
    expect(during).toBe(before);
  });
});

describe("StoreHolder (write mode)", () => {
  it("never reopens; its own writes move the generation", async () => {
    const dir = tempDir();
    let opens = 0;
    const holder = await StoreHolder.open({
      dir,
      writable: true,
      open: async () => {
        opens++;
        return MemoryStore.open(dir);
      },
    });
    await holder.use((s) => s.add("u1", "I like tea"));
    holder.markChanged();
    expect(holder.generation).toBe(2);
    expect(holder.followState().mode).toBe("write");
    expect(opens).toBe(1);
    await holder.close();
    // Closing released the lock.
    const next = await MemoryStore.open(dir);
    expect(await next.list("u1")).toHaveLength(1);
    await next.close();
  });
});
