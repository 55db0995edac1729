import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { entryFromJson, entryJsonText, entryToJson } from "./record-codec.ts";
import { ENTRY_KINDS, ENTRY_STATUSES, type EntryRecord, type JsonValue } from "../types.ts";

const json: fc.Arbitrary<JsonValue> = fc.jsonValue() as fc.Arbitrary<JsonValue>;

const entry: fc.Arbitrary<EntryRecord> = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 20 }),
    userId: fc.string({ minLength: 1, maxLength: 12 }),
    content: fc.string({ unit: "grapheme", maxLength: 60 }),
    kind: fc.constantFrom(...ENTRY_KINDS),
    status: fc.constantFrom(...ENTRY_STATUSES),
    createdAt: fc.oneof(fc.integer({ min: 0, max: 2 ** 45 }), fc.double({ min: 0, max: 1e13, noNaN: true })),
    updatedAt: fc.integer({ min: 0, max: 2 ** 45 }),
    seq: fc.nat(),
    metadata: fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 4 }),
    embedding: fc.option(fc.float32Array({ noDefaultInfinity: true, noNaN: true, maxLength: 40 }), { nil: null }),
    key: fc.option(fc.string({ unit: "grapheme", maxLength: 12 }), { nil: undefined }),
    supersededBy: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
  })
  .map((r) => {
    const { key, supersededBy, ...rest } = r;
    const out: EntryRecord = rest;
    if (key !== undefined) out.key = key;
    if (supersededBy !== undefined) out.supersededBy = supersededBy;
    return out;
  });

describe("entryJsonText", () => {
  it("is JSON.stringify(entryToJson(entry)), byte for byte", () => {
    fc.assert(
      fc.property(entry, (e) => {
        expect(entryJsonText(e)).toBe(JSON.stringify(entryToJson(e)));
      }),
      { numRuns: 300 },
    );
  });

  it("reads back as the same entry", () => {
    fc.assert(
      fc.property(entry, (e) => {
        const back = entryFromJson(JSON.parse(entryJsonText(e)));
        // Metadata is JSON: what comes back is its JSON round trip (-0 reads back as 0).
        const metadata = JSON.parse(JSON.stringify(e.metadata)) as typeof e.metadata;
        expect(back).toEqual({ ...e, metadata, embedding: e.embedding === null ? null : Float32Array.from(e.embedding) });
      }),
      { numRuns: 100 },
    );
  });
});
