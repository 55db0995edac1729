// The journal encoder writes exactly the bytes the format describes (README, "On-disk layout and recovery"): its
// fast paths (one buffer for ASCII lines, entry heads built from their parts) change no byte of a journal line.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import type { EntryRecord } from "../../src/types.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../../src/types.ts";
import { encodeJournalRecord, checkJournalLine, decodeJournalEntries } from "../../src/persistence/file/journal-format.ts";
import { entryToJson } from "../../src/persistence/record-codec.ts";
import { crc32Update } from "../../src/persistence/crc32.ts";
import { lifecycleArbitrary } from "../helpers/lifecycle-arbitrary.ts";

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 20 }), fc.string({ unit: "binary", maxLength: 20 }));
const time = fc.oneof(fc.integer({ min: -(2 ** 40), max: 2 ** 45 }), fc.double({ min: -1e13, max: 1e13, noNaN: true, noDefaultInfinity: true }));

const entryArbitrary: fc.Arbitrary<EntryRecord> = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 20 }),
    userId: text.filter((s) => s.length > 0),
    content: text,
    kind: fc.constantFrom(...ENTRY_KINDS),
    status: fc.constantFrom(...ENTRY_STATUSES),
    createdAt: time,
    updatedAt: time,
    seq: fc.nat(),
    metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 }),
    lifecycle: lifecycleArbitrary,
    key: fc.option(text, { nil: undefined }),
    supersededBy: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
  })
  .map(({ key, supersededBy, ...rest }) => {
    const entry: EntryRecord = { ...rest, embedding: null };
    if (key !== undefined) entry.key = key;
    if (supersededBy !== undefined) entry.supersededBy = supersededBy;
    return entry;
  });

/** The line as the format describes it, built the plain way: JSON.stringify of each entry object, the CRC over the documented input. */
function reference(gen: number, n: number, synced: number, time: number, continues: boolean, entries: EntryRecord[]): Uint8Array {
  const utf8 = new TextEncoder();
  const body = utf8.encode(JSON.stringify(entries.map((e) => entryToJson(e))));
  const crc = crc32Update(crc32Update(0, utf8.encode(`${gen}:${n}:${synced}:${time}:${continues ? "c:" : ""}`)), body);
  const head = utf8.encode(`{"n":${n},"s":${synced},"t":${time},${continues ? '"c":1,' : ""}"crc":${crc},"entries":`);
  const out = new Uint8Array(head.length + body.length + 2);
  out.set(head);
  out.set(body, head.length);
  out.set(utf8.encode("}\n"), head.length + body.length);
  return out;
}

describe("journal line bytes", () => {
  it("equal the format's plain construction for any entries (ASCII or not), and read back", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1000 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.nat({ max: 2 ** 40 }),
        fc.boolean(),
        fc.array(entryArbitrary, { maxLength: 6 }),
        (gen, n, time, continues, entries) => {
          const bytes = encodeJournalRecord(gen, { n, synced: n - 1, time, continues, entries });
          expect(bytes).toEqual(reference(gen, n, n - 1, time, continues, entries));
          const checked = checkJournalLine(gen, bytes.subarray(0, bytes.length - 1));
          if (typeof checked === "string") throw new Error(checked);
          expect(decodeJournalEntries(checked).map((e) => e.id)).toEqual(entries.map((e) => e.id));
        },
      ),
      { numRuns: 300, seed: 1717 },
    );
  });
});
