// A reopen with another embedder (`reembed`) answers the same whether users stay loaded or are unloaded and
// loaded again under `maxLoadedUsers`: the recomputed vectors are what the backend holds afterwards, not only
// what the store held in memory (the memory backend's compaction used to keep its old vectors).

import { describe, it, expect } from "vitest";
import { MemoryStore, HashingEmbedder } from "../../src/index.ts";
import { UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { T0, comparableExport, randomOp } from "../helpers/random-ops.ts";

async function exported(mem: MemoryStore): Promise<unknown> {
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  return comparableExport(lines);
}

describe("reembed under maxLoadedUsers", () => {
  it("answers as the same store without the bound, over random calls before and after the reembed", async () => {
    for (let run = 0; run < 6; run++) {
      const random = seededRandom(4400 + run);
      let now = T0;
      const clock = { now: () => now };
      const freeBackend = new UserLoadingMemoryBackend();
      const boundBackend = new UserLoadingMemoryBackend();
      let embedder = new HashingEmbedder();
      let free = await MemoryStore.open("free", { backend: freeBackend, clock, embedder });
      let bound = await MemoryStore.open("bound", { backend: boundBackend, clock, embedder, maxLoadedUsers: 1 });
      for (let step = 0; step < 90; step++) {
        now += 1000;
        if (step === 45) {
          await free.close();
          await bound.close();
          embedder = new HashingEmbedder({ dim: 64 + 64 * (run % 3) });
          free = await MemoryStore.open("free", { backend: freeBackend, clock, embedder, reembed: true });
          bound = await MemoryStore.open("bound", { backend: boundBackend, clock, embedder, reembed: true, maxLoadedUsers: 1 });
        }
        const op = randomOp(random);
        const expected = await op.run(free);
        expect(await op.run(bound), `run ${run} step ${step}: ${op.name}`).toEqual(expected);
      }
      expect(await exported(bound)).toEqual(await exported(free));
      await free.close();
      await bound.close();
      // Opened again with the new embedder and no reembed, both read the recomputed vectors.
      free = await MemoryStore.open("free", { backend: freeBackend, clock, embedder });
      bound = await MemoryStore.open("bound", { backend: boundBackend, clock, embedder, maxLoadedUsers: 1 });
      expect(await exported(bound)).toEqual(await exported(free));
      await free.close();
      await bound.close();
    }
  });
});
