// hashPairs (the dedup index's hash): equal texts hash alike, every code unit counts, and templated texts spread.

import { describe, it, expect } from "vitest";
import { hashPairs, hashPairsLowerAscii } from "./string-hash.ts";

describe("hashPairs", () => {
  it("gives equal texts the same hash however they were built, and counts every code unit, the odd last one too", () => {
    const flat = JSON.parse('"i live in berlin and drink coffee"') as string;
    const built = ["i live in ", "berlin", " and drink coffee"].join("");
    expect(hashPairs(built, 0)).toBe(hashPairs(flat, 0));
    expect(hashPairs(flat, 1)).not.toBe(hashPairs(flat, 0));
    // Texts one unit apart, at even and odd places, at the end, in the high half of a pair, and by length alone.
    const near = [
      "",
      "\u0000",
      "\u0000\u0000",
      "a",
      "b",
      "ab",
      "ac",
      "bb",
      "abc",
      "abd",
      "abcd",
      "abce",
      "abdd",
      "花生过敏",
      "花生过敏了",
      "ab\u0100",
      "ab\u0101",
    ];
    expect(new Set(near.map((t) => hashPairs(t, 0))).size).toBe(near.length);
    for (const text of near) expect(Number.isInteger(hashPairs(text, 0)) && hashPairs(text, 0) >= 0 && hashPairs(text, 0) < 2 ** 32).toBe(true);
  });

  it("spreads templated texts over 30 bits and the low bits alike", () => {
    const words = ["shanghai", "allergic", "daughter", "hiking", "vegetarian", "coffee", "meeting", "berlin"];
    const hashes = new Set<number>();
    const buckets = new Array<number>(64).fill(0);
    const count = 20_000;
    for (let i = 0; i < count; i++) {
      const text = `fact ${i}: ${words[i % 8]} ${words[(i >> 3) % 8]} ${words[(i * 5) % 8]}`;
      const hash = hashPairs(text, 0);
      hashes.add(hash & 0x3fffffff);
      buckets[hash & 63]!++;
    }
    // 20,000 texts in 2^30 values: a collision is expected with probability ~0.2; more than two would be a broken mix.
    expect(hashes.size).toBeGreaterThanOrEqual(count - 2);
    // Each of the 64 buckets expects 312.5 (standard deviation ~17.5): none may be off by more than 6 deviations.
    for (const n of buckets) expect(Math.abs(n - count / 64)).toBeLessThan(105);
  });
});

describe("hashPairsLowerAscii", () => {
  it("is hashPairs of the text in lower case, for every ASCII text (seeded, odd and even lengths, the letters' neighbours)", () => {
    let seed = 7;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    // The code units around A-Z and a-z ('@' 64, '[' 91, '`' 96, '{' 123) weigh more, where an off-by-one would show.
    const edges = [64, 65, 90, 91, 96, 97, 122, 123, 0, 127];
    for (let run = 0; run < 3000; run++) {
      const length = Math.floor(random() * 40);
      const text = String.fromCharCode(
        ...Array.from({ length }, () => (random() < 0.3 ? edges[Math.floor(random() * edges.length)]! : Math.floor(random() * 128))),
      );
      for (const s of [0, 1, 0xdeadbeef]) expect(hashPairsLowerAscii(text, s)).toBe(hashPairs(text.toLowerCase(), s));
    }
  });
});
