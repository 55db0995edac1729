// Tests of fusion by standardised scores: the formula, missing scores, flat routes, weights, order of routes.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { fuseStandardized, momentsFromSums, momentsOf } from "./standardized.ts";
import { MoomemError } from "../errors.ts";

describe("fuseStandardized", () => {
  it("sums weight · (score − mean) / sd over the routes; a route that did not return a doc gives it scoreOf(doc), else 0", () => {
    const fused = fuseStandardized(
      [
        {
          hits: [
            { doc: 7, score: 0.61 },
            { doc: 3, score: 0.4 },
          ],
          mean: 0.1,
          sd: 0.1,
          scoreOf: (doc) => (doc === 9 ? 0.3 : 0),
        },
        {
          hits: [
            { doc: 3, score: 8.2 },
            { doc: 9, score: 2 },
          ],
          mean: 0.2,
          sd: 1.1,
        },
      ],
      [1, 0.5],
    );
    expect(fused.map((f) => f.doc)).toEqual([3, 7, 9]);
    expect(fused[0]!.score).toBeCloseTo((0.4 - 0.1) / 0.1 + (0.5 * (8.2 - 0.2)) / 1.1, 12);
    expect(fused[1]!.score).toBeCloseTo((0.61 - 0.1) / 0.1 + (0.5 * (0 - 0.2)) / 1.1, 12);
    expect(fused[2]!.score).toBeCloseTo((0.3 - 0.1) / 0.1 + (0.5 * (2 - 0.2)) / 1.1, 12);
    expect(fused.map((f) => f.ranks)).toEqual([
      [2, 1],
      [1, undefined],
      [undefined, 2],
    ]);
  });

  it("a route with no spread (sd 0) or weight 0 adds nothing, so the other route's order stands", () => {
    const keyword = {
      hits: [
        { doc: 1, score: 5 },
        { doc: 2, score: 3 },
        { doc: 3, score: 1 },
      ],
      ...momentsOf([{ score: 5 }, { score: 3 }, { score: 1 }], 10),
    };
    const flat = {
      hits: [
        { doc: 3, score: 0.5 },
        { doc: 2, score: 0.5 },
        { doc: 9, score: 0.5 },
      ],
      mean: 0.5,
      sd: 0,
    };
    const alone = fuseStandardized([keyword]);
    const fused = fuseStandardized([flat, keyword]);
    expect(fused.slice(0, 3).map((f) => [f.doc, f.score])).toEqual(alone.map((f) => [f.doc, f.score]));
    // Equal scores leave a spread of rounding noise: it must not turn into a vote.
    const noisy = {
      ...flat,
      ...momentsOf(
        Array.from({ length: 7 }, () => ({ score: 0.1 })),
        7,
      ),
    };
    expect(
      fuseStandardized([noisy, keyword])
        .slice(0, 3)
        .map((f) => [f.doc, f.score]),
    ).toEqual(alone.map((f) => [f.doc, f.score]));
    const silent = fuseStandardized([{ ...flat, sd: 1 }, keyword], [0, 1]);
    expect(silent.slice(0, 3).map((f) => [f.doc, f.score])).toEqual(alone.map((f) => [f.doc, f.score]));
  });

  it("puts the larger (newer) doc first on equal scores, and counts a doc listed twice in a route at its first place", () => {
    const fused = fuseStandardized([
      {
        hits: [
          { doc: 1, score: 2 },
          { doc: 2, score: 2 },
          { doc: 1, score: 0 },
        ],
        mean: 0,
        sd: 1,
      },
    ]);
    expect(fused.map((f) => [f.doc, f.score, f.ranks[0]])).toEqual([
      [2, 2, 2],
      [1, 2, 1],
    ]);
  });

  it("does not depend on the order of the routes (with their weights)", () => {
    const hit = fc.record({ doc: fc.integer({ min: 0, max: 20 }), score: fc.double({ min: 0, max: 10, noNaN: true }) });
    const route = fc.record({
      hits: fc.array(hit, { maxLength: 15 }),
      mean: fc.double({ min: 0, max: 2, noNaN: true }),
      sd: fc.double({ min: 0, max: 3, noNaN: true }),
    });
    fc.assert(
      fc.property(route, route, fc.double({ min: 0, max: 2, noNaN: true }), (a, b, w) => {
        const ab = fuseStandardized([a, b], [w, 1]);
        const ba = fuseStandardized([b, a], [1, w]);
        expect(ba.map((f) => f.doc)).toEqual(ab.map((f) => f.doc));
        ab.forEach((f, i) => expect(ba[i]!.score).toBeCloseTo(f.score, 9));
      }),
      { numRuns: 200 },
    );
  });

  it("moments: mean and sd of count scores of which only the given ones are non-zero", () => {
    expect(momentsOf([{ score: 3 }, { score: 1 }], 4)).toEqual({ mean: 1, sd: Math.sqrt(10 / 4 - 1) });
    expect(momentsOf([], 0)).toEqual({ mean: 0, sd: 0 });
    expect(momentsFromSums(2, 4, 8)).toEqual({ mean: 2, sd: 0 });
    // Rounding can make Σx²/n − mean² slightly negative for equal scores: the sd is then 0, never NaN.
    expect(momentsFromSums(3, 0.3, 0.03 - 1e-12).sd).toBe(0);
    for (const x of [0.1, 0.2, 0.7, 1 / 3]) {
      const { sd } = momentsOf(
        Array.from({ length: 7 }, () => ({ score: x })),
        7,
      );
      expect(Number.isNaN(sd)).toBe(false);
      expect(sd).toBeLessThan(1e-7);
    }
  });

  it("rejects routes and weights it cannot use", () => {
    const route = { hits: [{ doc: 1, score: 1 }], mean: 0, sd: 1 };
    for (const run of [
      () => fuseStandardized("x" as never),
      () => fuseStandardized([route], [1, 1]),
      () => fuseStandardized([route], [-1]),
      () => fuseStandardized([{ ...route, sd: -1 }]),
      () => fuseStandardized([{ ...route, mean: Number.NaN }]),
      () => fuseStandardized([{ mean: 0, sd: 1 } as never]),
    ]) {
      expect(run).toThrow(MoomemError);
    }
  });
});
