// The dedup index keys entries by a hash of their dedup form: texts whose hashes collide are never duplicates.

import { describe, it, expect } from "vitest";
import type { EntryRecord } from "../../src/types.ts";
import { DedupIndex, dedupHash } from "../../src/state/dedup-index.ts";
import { normalizeForDedup } from "../../src/text/tokenizer.ts";
import { entryRecord } from "../helpers/entry-record.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

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

  // Bounded by runs. A model keeps each form's seqs in the order they were added; the index, through
  // adds and removes, must give the same ids in the same order (the first is the original), for texts
  // repeated many times, texts whose hashes collide, and the rest.
  it("gives each form's entries in the order they were added, over random adds and removes", () => {
    const [a, b] = collision();
    const random = seededRandom(3141);
    const pick = (n: number): number => Math.floor(random() * n);
    for (let run = 0; run < 25; run++) {
      const texts = [a, b, ...Array.from({ length: 2 + pick(run % 2 === 0 ? 8 : 400) }, (_, i) => `text ${run} ${i}`)];
      const records = new Map<number, EntryRecord>();
      const index = new DedupIndex((seq) => records.get(seq));
      const model = new Map<string, number[]>();
      let next = 1;
      const steps = 100 + pick(2500);
      for (let step = 0; step < steps; step++) {
        const grow = step < steps / 2 ? 0.7 : 0.3;
        if (random() < grow || records.size === 0) {
          const text = texts[pick(texts.length)]!;
          const seq = next++;
          records.set(seq, entryRecord({ id: `e${seq}`, userId: "ann", seq, content: text }));
          index.add(text, seq);
          model.set(text, [...(model.get(text) ?? []), seq]);
        } else {
          const held = [...records.keys()];
          const seq = held[pick(held.length)]!;
          const text = records.get(seq)!.content;
          index.remove(text, seq);
          records.delete(seq);
          const left = model.get(text)!.filter((s) => s !== seq);
          if (left.length === 0) model.delete(text);
          else model.set(text, left);
        }
        if (step % 50 === 0 || step === steps - 1) {
          for (const text of texts) expect(index.get(text), `run ${run} step ${step}: ${text}`).toEqual(model.get(text)?.map((seq) => `e${seq}`));
          const forms = [...model].map(([text, seqs]) => [text, seqs.map((seq) => `e${seq}`)]).sort();
          expect([...index].sort(), `run ${run} step ${step}`).toEqual(forms);
        }
      }
    }
  });
});
