// The seeded hostile-import property on a file store: a refused import changes no byte on disk, and every answer stays.

import { describe, it, expect, afterAll } from "vitest";
import { MemoryStore, isMoomemError } from "../../src/node.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { answers, hostileImport, idsByUser, openOptions, populate, sourceObjects } from "../helpers/hostile-lines.ts";
import { filesOf, makeTempDir, removeDir } from "./helpers/store-files.ts";

/** Bounded by runs, never by time. */
const RUNS = 60;

const dir = makeTempDir("hostile-files");
afterAll(() => removeDir(dir));

describe("hostile import on a file store (seeded property)", () => {
  it("every refused import leaves the files byte for byte and the answers as they were, and the store reopens", async () => {
    const mem = await MemoryStore.open(dir, openOptions());
    await populate(mem, 1);
    const baseline = await answers(mem);
    const files = filesOf(dir);
    const targetIds = await idsByUser(mem);
    const source = await sourceObjects();
    for (let run = 0; run < RUNS; run++) {
      const seed = 0xf11e + run;
      const { lines, mutations } = hostileImport(seededRandom(seed), source, targetIds);
      const what = `run ${run} (seed ${seed}): ${mutations.join("; ")}`;
      let error: unknown = null;
      try {
        await mem.import(lines);
      } catch (e) {
        error = e;
      }
      expect(isMoomemError(error, "INVALID_ARGUMENT"), `${what}: ${String(error)}`).toBe(true);
      expect(filesOf(dir), what).toEqual(files);
      expect(await answers(mem), what).toEqual(baseline);
    }
    await mem.close();
    const again = await MemoryStore.open(dir, openOptions());
    expect(await answers(again)).toEqual(baseline);
    await again.close();
  }, 120_000);
});
