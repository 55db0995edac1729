import { describe, it, expect } from "vitest";
import { BoundedMemo } from "./bounded-memo.ts";

describe("BoundedMemo", () => {
  it("computes a key once while it stays among the recent ones", () => {
    const calls: string[] = [];
    const memo = new BoundedMemo<number>(3, (key) => {
      calls.push(key);
      return key.length;
    });
    expect(memo.get("a")).toBe(1);
    expect(memo.get("bb")).toBe(2);
    expect(memo.get("a")).toBe(1);
    expect(calls).toEqual(["a", "bb"]);
  });

  it("keeps at least the last `capacity` keys and forgets older ones", () => {
    const calls: string[] = [];
    const memo = new BoundedMemo<string>(4, (key) => {
      calls.push(key);
      return key.toUpperCase();
    });
    for (let i = 0; i < 20; i++) memo.get(`k${i}`);
    calls.length = 0;
    for (let i = 16; i < 20; i++) expect(memo.get(`k${i}`)).toBe(`K${i}`);
    expect(calls).toEqual([]);
    expect(memo.get("k0")).toBe("K0");
    expect(calls).toEqual(["k0"]);
  });

  it("keeps a key that is used often, however many others pass through", () => {
    let computed = 0;
    const memo = new BoundedMemo<number>(4, (key) => {
      if (key === "hot") computed++;
      return key.length;
    });
    for (let i = 0; i < 100; i++) {
      memo.get("hot");
      memo.get(`cold${i}`);
    }
    expect(computed).toBe(1);
  });

  it("does not keep very long keys", () => {
    let computed = 0;
    const memo = new BoundedMemo<number>(4, (key) => {
      computed++;
      return key.length;
    });
    const long = "x".repeat(10_000);
    expect(memo.get(long)).toBe(10_000);
    expect(memo.get(long)).toBe(10_000);
    expect(computed).toBe(2);
  });
});
