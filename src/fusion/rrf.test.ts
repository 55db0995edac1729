// Tests of Reciprocal Rank Fusion: scores, ranks, tie order and symmetry under reordering the routes.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { fuseRrf } from "./rrf.ts";
import { MoomemError } from "../errors.ts";

describe("fuseRrf", () => {
  it("sums 1 / (k + rank) over the routes that returned a doc", () => {
    expect(
      fuseRrf(
        [
          [7, 3],
          [3, 9],
        ],
        60,
      ),
    ).toEqual([
      { doc: 3, score: 1 / 61 + 1 / 62, ranks: [2, 1] },
      { doc: 7, score: 1 / 61, ranks: [1, undefined] },
      { doc: 9, score: 1 / 62, ranks: [undefined, 2] },
    ]);
  });

  it("puts the larger (newer) doc first on equal scores", () => {
    const fused = fuseRrf(
      [
        [1, 2],
        [2, 1],
      ],
      60,
    );
    expect(fused.map((f) => f.doc)).toEqual([2, 1]);
    expect(fused[0]?.score).toBe(fused[1]?.score);
    expect(fuseRrf([[4], [9]], 60).map((f) => f.doc)).toEqual([9, 4]);
  });

  it("handles no routes, empty routes and a single route", () => {
    expect(fuseRrf([], 60)).toEqual([]);
    expect(fuseRrf([[], []], 60)).toEqual([]);
    expect(fuseRrf([[5, 1, 8]], 10).map((f) => [f.doc, f.ranks[0]])).toEqual([
      [5, 1],
      [1, 2],
      [8, 3],
    ]);
  });

  it("counts a doc listed twice in one route at its better rank", () => {
    expect(fuseRrf([[4, 5, 4]], 60)).toEqual([
      { doc: 4, score: 1 / 61, ranks: [1] },
      { doc: 5, score: 1 / 62, ranks: [2] },
    ]);
  });

  it("uses k: k = 0 makes rank 1 worth 1", () => {
    expect(fuseRrf([[1]], 0)[0]?.score).toBe(1);
  });

  it("rejects a bad k or bad routes with INVALID_ARGUMENT", () => {
    for (const k of [-1, Number.NaN, Infinity, "60" as unknown as number]) {
      expect(() => fuseRrf([[1]], k)).toThrow(MoomemError);
    }
    expect(() => fuseRrf("x" as unknown as number[][], 60)).toThrow(/routes must be an array/);
    expect(() => fuseRrf([[1], 2 as unknown as number[]], 60)).toThrow(/route 1 must be an array/);
  });

  it("weights each route's votes: score = Σ weight / (k + rank)", () => {
    expect(
      fuseRrf(
        [
          [7, 3],
          [3, 9],
        ],
        5,
        [0.1, 1],
      ),
    ).toEqual([
      { doc: 3, score: 1 / 6 + 0.1 / 7, ranks: [2, 1] },
      { doc: 9, score: 1 / 7, ranks: [undefined, 2] },
      { doc: 7, score: 0.1 / 6, ranks: [1, undefined] },
    ]);
    // A weight of 0 keeps the route's ranks but gives it no say.
    expect(
      fuseRrf(
        [
          [1, 2],
          [2, 1],
        ],
        60,
        [0, 1],
      ).map((f) => [f.doc, f.ranks]),
    ).toEqual([
      [2, [2, 1]],
      [1, [1, 2]],
    ]);
  });

  it("rejects weights that are not one finite number ≥ 0 per route", () => {
    expect(() => fuseRrf([[1], [2]], 60, [1])).toThrow(/one number per route/);
    expect(() => fuseRrf([[1], [2]], 60, [1, -0.5])).toThrow(/weights\[1\]/);
    expect(() => fuseRrf([[1], [2]], 60, [1, Number.NaN])).toThrow(MoomemError);
    expect(() => fuseRrf([[1]], 60, "1" as unknown as number[])).toThrow(MoomemError);
  });

  const route = fc.uniqueArray(fc.integer({ min: 0, max: 15 }), { maxLength: 12 });
  const weight = fc.double({ min: 0, max: 4, noNaN: true });

  it("gives bit-identical scores with all weights 1 and with no weights", () => {
    fc.assert(
      fc.property(fc.array(route, { maxLength: 4 }), fc.integer({ min: 0, max: 100 }), (routes, k) => {
        expect(
          fuseRrf(
            routes,
            k,
            routes.map(() => 1),
          ),
        ).toEqual(fuseRrf(routes, k));
      }),
    );
  });

  it("swapping two weighted routes (with their weights) swaps their ranks and changes nothing else", () => {
    fc.assert(
      fc.property(route, route, weight, weight, fc.integer({ min: 0, max: 100 }), (a, b, wa, wb, k) => {
        const ab = fuseRrf([a, b], k, [wa, wb]);
        const ba = fuseRrf([b, a], k, [wb, wa]);
        expect(ba.map((f) => [f.doc, f.score])).toEqual(ab.map((f) => [f.doc, f.score]));
        expect(ba.map((f) => f.ranks)).toEqual(ab.map((f) => [f.ranks[1], f.ranks[0]]));
      }),
    );
  });

  it("swapping two routes swaps their ranks and changes nothing else", () => {
    fc.assert(
      fc.property(route, route, fc.integer({ min: 0, max: 100 }), (a, b, k) => {
        const ab = fuseRrf([a, b], k);
        const ba = fuseRrf([b, a], k);
        expect(ba.map((f) => [f.doc, f.score])).toEqual(ab.map((f) => [f.doc, f.score]));
        expect(ba.map((f) => f.ranks)).toEqual(ab.map((f) => [f.ranks[1], f.ranks[0]]));
      }),
    );
  });

  it("is independent of the order of any number of routes", () => {
    fc.assert(
      fc.property(fc.array(route, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 100 }), (routes, k) => {
        const reversed = [...routes].reverse();
        const forward = fuseRrf(routes, k);
        const backward = fuseRrf(reversed, k);
        expect(backward.map((f) => [f.doc, f.score])).toEqual(forward.map((f) => [f.doc, f.score]));
        expect(backward.map((f) => [...f.ranks].reverse())).toEqual(forward.map((f) => f.ranks));
      }),
    );
  });

  it("agrees with a direct computation: every doc once, right ranks, sorted", () => {
    fc.assert(
      fc.property(fc.array(route, { maxLength: 4 }), fc.integer({ min: 0, max: 100 }), (routes, k) => {
        const fused = fuseRrf(routes, k);
        const allDocs = new Set(routes.flat());
        expect(fused.length).toBe(allDocs.size);
        for (const { doc, score, ranks } of fused) {
          expect(ranks.length).toBe(routes.length);
          let expected = 0;
          routes.forEach((r, i) => {
            const at = r.indexOf(doc);
            expect(ranks[i]).toBe(at === -1 ? undefined : at + 1);
            if (at !== -1) expected += 1 / (k + at + 1);
          });
          expect(score).toBeCloseTo(expected, 12);
        }
        for (let i = 1; i < fused.length; i++) {
          const prev = fused[i - 1] as (typeof fused)[number];
          const cur = fused[i] as (typeof fused)[number];
          expect(prev.score > cur.score || (prev.score === cur.score && prev.doc > cur.doc)).toBe(true);
        }
      }),
    );
  });
});
