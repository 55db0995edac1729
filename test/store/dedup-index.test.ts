// The dedup index keys entries by a hash of their dedup form: texts whose hashes collide are never duplicates.

import { describe, it, expect } from "vitest";
import type { EntryRecord } from "../../src/types.ts";
import { DedupIndex, dedupHash } from "../../src/state/dedup-index.ts";
import { normalizeForDedup } from "../../src/text/tokenizer.ts";
import { entryRecord } from "../helpers/entry-record.ts";

/** Two different dedup forms with the same hash (found by a bounded search: 30 bits collide within some 10^5 texts). */
function collision(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; i < 400_000; i++) {
    const text = `note ${i.toString(36)}`;
    const hash = dedupHash(text);
    const other = seen.get(hash);
    if (other !== undefined) return [other, text];
    seen.set(hash, text);
  }
  throw new Error("no collision found");
}

describe("DedupIndex", () => {
  it("keeps texts whose hashes collide apart, in every order of adds and removes", () => {
    const [a, b] = collision();
    expect(a).not.toBe(b);
    expect(normalizeForDedup(a)).toBe(a);
    expect(normalizeForDedup(b)).toBe(b);
    const records = new Map<number, EntryRecord>();
    const index = new DedupIndex((seq) => records.get(seq));
    const put = (seq: number, content: string): void => {
      records.set(seq, entryRecord({ id: `e${seq}`, userId: "ann", seq, content }));
      index.add(normalizeForDedup(content), seq);
    };
    put(1, a);
    expect(index.get(b)).toBeUndefined();
    put(2, b);
    put(3, a);
    expect(index.get(a)).toEqual(["e1", "e3"]);
    expect(index.get(b)).toEqual(["e2"]);
    expect(new Map(index)).toEqual(
      new Map([
        [a, ["e1", "e3"]],
        [b, ["e2"]],
      ]),
    );
    index.remove(a, 1);
    expect(index.get(a)).toEqual(["e3"]);
    expect(index.get(b)).toEqual(["e2"]);
    index.remove(b, 2);
    expect(index.get(b)).toBeUndefined();
    expect(index.get(a)).toEqual(["e3"]);
    index.remove(a, 3);
    expect(index.get(a)).toBeUndefined();
    expect([...index.keys()]).toEqual([]);
    // Removing what is not there changes nothing.
    put(4, b);
    index.remove(a, 9);
    index.remove(b, 9);
    expect(index.get(b)).toEqual(["e4"]);
  });
});
