// Tests of the two-bit per-slot term frequencies a BM25 search probes instead of walking a long postings list.

import { describe, it, expect } from "vitest";
import { TfCodes } from "./tf-codes.ts";

describe("TfCodes", () => {
  it("reads back each slot's tf, saturating at 3, and 0 for slots never set or past the end", () => {
    const codes = TfCodes.fromPostings([0, 5, 17, 31, 32], [1, 2, 3, 7, 1], 40);
    expect([0, 5, 17, 31, 32].map((slot) => codes.get(slot))).toEqual([1, 2, 3, 3, 1]);
    for (const slot of [1, 4, 6, 16, 18, 30, 33, 39, 40, 1000]) expect(codes.get(slot)).toBe(0);
    expect(codes.byteLength).toBe(12);
  });

  it("sets and clears slots without disturbing their neighbours in the same word", () => {
    const codes = TfCodes.fromPostings([], [], 32);
    for (let slot = 0; slot < 32; slot++) codes.set(slot, 1 + (slot % 3));
    codes.set(7, 0);
    codes.set(8, 5);
    codes.set(15, 1);
    codes.set(16, 0);
    for (let slot = 0; slot < 32; slot++) {
      const expected = slot === 7 || slot === 16 ? 0 : slot === 8 ? 3 : slot === 15 ? 1 : 1 + (slot % 3);
      expect(codes.get(slot)).toBe(expected);
    }
  });

  it("grows to cover slots added past the end, keeping the old ones", () => {
    const codes = TfCodes.fromPostings([3], [2], 4);
    expect(codes.byteLength).toBe(4);
    for (let slot = 4; slot < 200; slot += 7) codes.set(slot, 1);
    expect(codes.get(3)).toBe(2);
    for (let slot = 4; slot < 200; slot++) expect(codes.get(slot)).toBe((slot - 4) % 7 === 0 ? 1 : 0);
    // Clearing a slot past the end allocates nothing.
    const before = codes.byteLength;
    codes.set(100_000, 0);
    expect(codes.byteLength).toBe(before);
  });

  it("moves a slot's code to another slot and clears the old one", () => {
    const codes = TfCodes.fromPostings([2, 9, 40], [3, 1, 2], 48);
    codes.move(40, 10);
    expect([codes.get(2), codes.get(9), codes.get(10), codes.get(40)]).toEqual([3, 1, 2, 0]);
    codes.move(2, 47);
    expect([codes.get(2), codes.get(47)]).toEqual([0, 3]);
  });
});
