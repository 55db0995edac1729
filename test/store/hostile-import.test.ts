import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend, isMoomemError } from "../../src/index.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { answers, hostileImport, idsByUser, openOptions, populate, sourceObjects } from "../helpers/hostile-lines.ts";

/** Bounded by runs, never by time: each run is one hostile file, each file must be refused whole. */
const RUNS = 120;

describe("hostile import (seeded property)", () => {
  it("an import with any invalid line is refused, and every user's answers stay the same, also after a reopen", async () => {
    const backend = new MemoryBackend();
    const mem = await MemoryStore.open("hostile", { backend, ...openOptions() });
    await populate(mem, 0);
    const baseline = await answers(mem);
    const targetIds = await idsByUser(mem);
    const source = await sourceObjects();
    for (let run = 0; run < RUNS; run++) {
      const rnd = seededRandom(0x5eed + run);
      const { lines, mutations } = hostileImport(rnd, source, targetIds);
      const what = `run ${run} (seed ${0x5eed + run}): ${mutations.join("; ")}`;
      let error: unknown = null;
      try {
        await mem.import(lines);
      } catch (e) {
        error = e;
      }
      expect(isMoomemError(error, "INVALID_ARGUMENT"), `${what}: ${String(error)}`).toBe(true);
      expect((error as Error).message, what).toMatch(/nothing was imported/);
      expect(await answers(mem), what).toEqual(baseline);
    }
    await mem.close();
    const again = await MemoryStore.open("hostile", { backend, ...openOptions() });
    expect(await answers(again)).toEqual(baseline);
    // the same source, unbent, imports
    expect((await again.import(source.map((o) => `${JSON.stringify(o)}\n`))).entries).toBe(source.length - 1);
    await again.close();
  });
});
