// DocSlots (the BM25 layout's document → slot table) against a Map over random sets, deletes and look-ups.

import { describe, it, expect } from "vitest";
import { DocSlots } from "./doc-slots.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";

describe("DocSlots", () => {
  // Bounded by runs. Documents are drawn from a few shapes: consecutive seqs (a build), strides (one user's
  // seqs among several users'), and large safe integers (above 2³², whose high bits must count).
  it("answers as a Map does over random sets, deletes and look-ups, through growing and shrinking", () => {
    const random = seededRandom(1701);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let run = 0; run < 60; run++) {
      const shape = run % 4;
      const stride = 1 + pick(64);
      const base = shape === 3 ? Number.MAX_SAFE_INTEGER - 1_000_000 : shape === 2 ? 2 ** 32 - 500 : pick(1000);
      const doc = (): number => base + stride * pick(shape === 0 ? 300 : 3000);
      const table = new DocSlots();
      const map = new Map<number, number>();
      const steps = 200 + pick(3000);
      for (let step = 0; step < steps; step++) {
        const r = random();
        // Grow first, then churn, then empty most of it (the table halves as it empties).
        const phase = step / steps;
        const d = doc();
        if (r < (phase < 0.5 ? 0.7 : phase < 0.8 ? 0.4 : 0.1)) {
          const slot = pick(1 << 20);
          table.set(d, slot);
          map.set(d, slot);
        } else if (r < 0.9) {
          expect(table.delete(d), `run ${run} step ${step} delete ${d}`).toBe(map.delete(d));
        } else {
          expect(table.get(d), `run ${run} step ${step} get ${d}`).toBe(map.get(d));
          expect(table.has(d)).toBe(map.has(d));
        }
        expect(table.size).toBe(map.size);
      }
      for (const [d, slot] of map) expect(table.get(d), `run ${run} end ${d}`).toBe(slot);
      for (const d of [...map.keys()]) {
        expect(table.delete(d)).toBe(true);
        expect(table.has(d)).toBe(false);
      }
      expect(table.size).toBe(0);
      expect(table.get(base)).toBeUndefined();
    }
  });

  it("keeps consecutive documents, as a build adds them, and finds each after deletes around it", () => {
    const table = new DocSlots();
    for (let d = 0; d < 50_000; d++) table.set(d, d);
    for (let d = 0; d < 50_000; d += 3) table.delete(d);
    for (let d = 0; d < 50_000; d++) expect(table.get(d)).toBe(d % 3 === 0 ? undefined : d);
    expect(table.size).toBe(50_000 - Math.ceil(50_000 / 3));
  });
});
