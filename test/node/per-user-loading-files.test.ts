// Per-user loading on files (README, "Many users: loading a user when asked"): a bounded file store answers as
// a store holding every user across compactions and reopens; damage in a user's lines is found when that user loads.

import { describe, it, expect } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../../src/node.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { rejectsWith } from "../helpers/scripted.ts";
import { T0, comparableExport, randomOp } from "../helpers/random-ops.ts";

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "moomem-per-user-files-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function exported(mem: MemoryStore): Promise<unknown> {
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  return comparableExport(lines);
}

describe("per-user loading on files", () => {
  it("with at most 2 users loaded, random calls answer exactly as a store holding every user, across compactions and reopens", async () => {
    await withDir(async (dir) => {
      for (let run = 0; run < 6; run++) {
        const random = seededRandom(2900 + run);
        const path = join(dir, `run-${run}`);
        let now = T0;
        const clock = { now: () => now };
        // A small journal threshold: the store compacts from its own files many times per run.
        const options = { clock, maxLoadedUsers: 2, compactAfterBytes: 4096 };
        const reference = await MemoryStore.open(":memory:", { clock });
        let bounded = await MemoryStore.open(path, options);
        for (let step = 0; step < 60; step++) {
          now += 1000;
          const op = randomOp(random);
          const expected = await op.run(reference);
          expect(await op.run(bounded), `run ${run} step ${step}: ${op.name}`).toEqual(expected);
          expect((await bounded.stats()).loadedUsers).toBeLessThanOrEqual(2);
          if (step % 20 === 19) {
            // Reopened: the catalog, snapshot and journal are read again; users load again when asked.
            await bounded.close();
            bounded = await MemoryStore.open(path, options);
          }
        }
        expect(await exported(bounded)).toEqual(await exported(reference));
        await reference.close();
        await bounded.close();
      }
    });
  }, 120_000);

  it("opens without reading anyone's entries into memory; stats and users come from the catalog", async () => {
    await withDir(async (dir) => {
      const first = await MemoryStore.open(dir);
      for (let u = 0; u < 20; u++) for (let i = 0; i < 3; i++) await first.add(`user-${u}`, `I love item ${u * 10 + i}`);
      await first.forget("user-3", { all: true });
      await first.close();
      const mem = await MemoryStore.open(dir, { maxLoadedUsers: 5 });
      const stats = await mem.stats();
      expect(stats).toMatchObject({ total: 60, active: 57, deleted: 3, users: 20, loadedUsers: 0, loadedBytes: 0 });
      expect((await mem.users()).find((u) => u.userId === "user-3")).toMatchObject({ total: 3, deleted: 3 });
      expect((await mem.recall("user-7", "item 71")).map((h) => h.content)).toContain("I love item 71");
      const after = await mem.stats();
      expect(after.loadedUsers).toBe(1);
      expect(after.loadedBytes).toBeGreaterThan(0);
      await mem.close();
    });
  });

  it("a snapshot line damaged after the open is STORE_CORRUPTED for the user whose line it is, never another user's entry", async () => {
    await withDir(async (dir) => {
      const first = await MemoryStore.open(dir);
      await first.add("ann", "I live in Berlin");
      await first.add("bob", "I live in Paris");
      await first.close();
      const mem = await MemoryStore.open(dir);
      // The open read and checked the snapshot; now ann's line says it is bob's (same length: every offset stays).
      const slot = join(dir, "moomem", (await readFile(join(dir, "moomem", "head"), "utf8")) === "0" ? "slot0.jsonl" : "slot1.jsonl");
      const lines = (await readFile(slot, "utf8")).split("\n");
      const annAt = lines.findIndex((l) => l.includes('"user_id":"ann"'));
      expect(annAt).toBeGreaterThan(0);
      lines[annAt] = lines[annAt]!.replace('"user_id":"ann"', '"user_id":"bob"');
      await writeFile(slot, lines.join("\n"));
      const error = await rejectsWith(mem.list("ann"), "STORE_CORRUPTED");
      expect(error.message).toMatch(/slot[01]\.jsonl/);
      expect(error.message).toContain("not the entry the index says (user ann");
      expect((await mem.list("bob")).map((e) => e.content)).toEqual(["I live in Paris"]);
      await mem.close().catch(() => undefined);
    });
  });

  it("refuses maxLoadedUsers on a read-only open, naming both", async () => {
    await withDir(async (dir) => {
      await (await MemoryStore.open(dir)).close();
      const error = await rejectsWith(MemoryStore.open(dir, { readOnly: true, maxLoadedUsers: 3 }), "INVALID_ARGUMENT");
      expect(error.message).toContain("maxLoadedUsers (3)");
      expect(error.message).toContain("readOnly");
    });
  });
});
