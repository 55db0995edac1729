// The inspector's StoreHolder over real files: catching up with a writer through refresh(), surviving a failed catch-up.

import { describe, it, expect, afterEach } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { MoomemError } from "../../src/errors.ts";
import { StoreHolder } from "../../src/inspector/store-holder.ts";
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

/** A holder over a read-only store whose next catch-up can be told to fail. */
function holderOptions(dir: string): { opens: number; failNext: boolean; options: Parameters<typeof StoreHolder.open>[0] } {
  const state = {
    opens: 0,
    failNext: false,
    options: {
      dir,
      writable: false,
      open: async () => {
        state.opens++;
        const store = await MemoryStore.open(dir, { readOnly: true });
        const refresh = store.refresh.bind(store);
        store.refresh = async () => {
          if (!state.failNext) return refresh();
          state.failNext = false;
          throw new MoomemError("STORE_CORRUPTED", "injected: the journal could not be read");
        };
        return store;
      },
    },
  };
  return state;
}

describe("StoreHolder (follow mode)", () => {
  it("sees what a writer committed through refresh(), without opening the store again", async () => {
    const dir = tempDir();
    const writer = await MemoryStore.open(dir);
    await writer.add("u1", "I like tea");
    const state = holderOptions(dir);
    const holder = await StoreHolder.open(state.options);
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(1);
    expect(await holder.use((s) => s.list("u1"))).toHaveLength(1);
    expect(holder.generation).toBe(1);

    await writer.add("u1", "I play chess");
    expect((await holder.use((s) => s.list("u1"))).map((e) => e.content)).toEqual(["I like tea", "I play chess"]);
    expect(holder.generation).toBe(2);
    expect(holder.followState()).toMatchObject({ mode: "follow", generation: 2, lastError: null });
    expect(holder.followState().changedAt).not.toBeNull();

    // Nothing new: same generation. A compaction by the writer (at close) changes no answer either.
    await holder.use((s) => s.stats());
    expect(holder.generation).toBe(2);
    await writer.close();
    expect((await holder.use((s) => s.list("u1"))).map((e) => e.content)).toEqual(["I like tea", "I play chess"]);
    expect(state.opens).toBe(1);
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

  it("a folder with no store is refused (STORE_NOT_FOUND): a read-only inspector creates nothing", async () => {
    const dir = tempDir();
    await expect(StoreHolder.open(holderOptions(dir).options)).rejects.toMatchObject({ code: "STORE_NOT_FOUND" });
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
