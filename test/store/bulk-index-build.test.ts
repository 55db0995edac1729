// A user's indexes built in bulk (first use after a load: every entry at once, vectors a tile at a time, no tokenizer memo)
// are the indexes one-by-one adds make: same answers, scores to the bit, same dedup and slot maps.

import { describe, it, expect } from "vitest";
import { EntryState, type UserShard } from "../../src/state/entry-state.ts";
import type { EntryRecord } from "../../src/types.ts";
import { tokenize } from "../../src/text/tokenizer.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const WORDS = [
  "coffee",
  "peanuts",
  "Berlin",
  "nurse",
  "violin",
  "painted",
  "paints",
  "I'm",
  "Caroline's",
  "the",
  "我对花生过敏",
  "東京",
  "café",
  "naïve",
  "2024",
  "12345",
];

function records(seed: number, count: number, dim: number): EntryRecord[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const out: EntryRecord[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const words = Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick(WORDS));
    // Some texts repeat (dedup holders of several ids), some end in punctuation, some are blank-ish.
    const content =
      random() < 0.1 && out.length > 0
        ? out[Math.floor(random() * out.length)]!.content
        : `${words.join(random() < 0.5 ? " " : "  ")}${random() < 0.3 ? "." : ""}`;
    const status = pick(["active", "active", "active", "unstructured", "superseded", "deleted"] as const);
    const embedding = random() < 0.1 ? null : new Float32Array(dim);
    if (embedding !== null && random() < 0.95) for (let k = 0; k < 1 + dim / 4; k++) embedding[Math.floor(random() * dim)] = random() * 4 - 2;
    out.push({
      id: `e${seq}`,
      userId: "ann",
      content,
      kind: "fact",
      status,
      createdAt: 1_700_000_000_000 + seq,
      updatedAt: 1_700_000_000_000 + seq,
      seq,
      metadata: {},
      lifecycle: {},
      embedding,
      ...(random() < 0.2 ? { key: pick(["city", "job", "pet"]) } : {}),
      ...(status === "superseded" ? { supersededBy: "x" } : {}),
    });
  }
  return out;
}

function sameShard(bulk: UserShard, single: UserShard, dim: number, random: () => number): void {
  expect(bulk.vectors.size).toBe(single.vectors.size);
  expect(bulk.keywords.size).toBe(single.keywords.size);
  expect([...bulk.dedup]).toEqual([...single.dedup]);
  expect([...bulk.keys]).toEqual([...single.keys]);
  for (let q = 0; q < 5; q++) {
    const query = new Float32Array(dim);
    for (let k = 0; k < dim; k++) query[k] = random() - 0.5;
    const a = { count: 0, sum: 0, sumSquares: 0 };
    const b = { count: 0, sum: 0, sumSquares: 0 };
    expect(bulk.vectors.search(query, 1000, a)).toEqual(single.vectors.search(query, 1000, b));
    expect(a).toEqual(b);
    const text = tokenize(WORDS.filter(() => random() < 0.3).join(" "));
    expect(bulk.keywords.search(text, 1000)).toEqual(single.keywords.search(text, 1000));
    expect(bulk.keywords.search(text, 3)).toEqual(single.keywords.search(text, 3));
  }
}

describe("bulk build of a user's indexes", () => {
  it("gives the indexes one-by-one adds give (seeded, sizes across the vector tile and block boundaries)", () => {
    for (const [seed, count, dim] of [
      [1, 1, 8],
      [2, 63, 8],
      [3, 64, 16],
      [4, 65, 8],
      [5, 300, 32],
      [6, 1500, 8],
    ] as const) {
      const entries = records(seed, count, dim);
      const bulk = new EntryState(dim);
      for (const record of entries) bulk.load(record);
      // One by one: the first load built (first use), every later load indexed on its own.
      const single = new EntryState(dim);
      single.load(entries[0]!);
      expect(single.shard("ann")).toBeDefined();
      for (const record of entries.slice(1)) single.load(record);
      sameShard(bulk.shard("ann")!, single.shard("ann")!, dim, seededRandom(seed + 100));
    }
  });
});
