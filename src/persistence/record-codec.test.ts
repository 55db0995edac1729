import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { entryFromJson, entryJsonText, entryToJson } from "./record-codec.ts";
import { bytesToBase64, vectorToBase64 } from "./base64.ts";
import { ENTRY_KINDS, ENTRY_STATUSES, type EntryRecord, type JsonValue } from "../types.ts";
import { lifecycleArbitrary } from "../../test/helpers/lifecycle-arbitrary.ts";
import { entryRecord } from "../../test/helpers/entry-record.ts";
import { lifecycleFromJson, lifecycleToJson } from "./lifecycle-codec.ts";

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
    lifecycle: lifecycleArbitrary,
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
  it("reads each line's lifecycle as lifecycleFromJson reads it, however lines repeat or change one (a line's lifecycle is reused from the line before)", () => {
    // A few lifecycles, repeated in runs, with fields in another order, a field's value changed or of the wrong type.
    const base = fc.constantFrom<Record<string, unknown>>(
      { extractor: "patterns" },
      { extractor: "patterns", source_span: "a" },
      { source_span: "a", extractor: "patterns" },
      { extractor: "llm" },
      { extractor: 7 },
      { deleted_at: 5, deleted_from: "active" },
      { deleted_at: -0, deleted_from: "active" },
      { deleted_at: 0, deleted_from: "active" },
      { deleted_from: "gone" },
      { conflict: ["x"] },
      {},
    );
    const lines = fc.array(
      fc.oneof(
        base,
        lifecycleArbitrary.map((l) => lifecycleToJson(l) as Record<string, unknown>),
      ),
      { minLength: 1, maxLength: 12 },
    );
    const line = (lifecycle: unknown): { lifecycle: Record<string, unknown> } =>
      JSON.parse(
        `{"id":"e1","user_id":"u","content":"c","kind":"fact","status":"active","created_at":1,"updated_at":1,"superseded_by":null,"seq":1,"embedding":null,"metadata":{},"lifecycle":${JSON.stringify(lifecycle)}}`,
      );
    const outcome = (read: () => unknown): unknown => {
      try {
        return { value: read() };
      } catch (error) {
        return { error: (error as Error).message };
      }
    };
    fc.assert(
      fc.property(lines, fc.nat({ max: 3 }), (lifecycles, runs) => {
        for (const lifecycle of lifecycles.flatMap((l) => Array.from({ length: runs + 1 }, () => l))) {
          const o = line(lifecycle);
          expect(outcome(() => entryFromJson(o).lifecycle)).toEqual(outcome(() => lifecycleFromJson(line(lifecycle).lifecycle)));
          // A caller changing the object it had read changes nothing of the next read.
          for (const key of Object.keys(o.lifecycle)) o.lifecycle[key] = "changed";
        }
      }),
      { numRuns: 300 },
    );
  });

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

  it("with sparse, writes a mostly-zero vector by its set components and reads it back bit for bit", () => {
    const mostlyZero = fc
      .record({
        dim: fc.integer({ min: 1, max: 300 }),
        set: fc.array(fc.tuple(fc.nat(), fc.float({ noNaN: true, noDefaultInfinity: true })), { maxLength: 20 }),
      })
      .map(({ dim, set }) => {
        const v = new Float32Array(dim);
        for (const [i, x] of set) v[i % dim] = x;
        return v;
      });
    fc.assert(
      fc.property(entry, fc.option(mostlyZero, { nil: null }), (e, vector) => {
        const withVector: EntryRecord = { ...e, embedding: vector ?? e.embedding };
        const text = entryJsonText(withVector, true);
        const parsed = JSON.parse(text) as { embedding: unknown };
        // The line is the entry's JSON object with the embedding in one of its two forms, nothing else.
        const dense = JSON.stringify(entryToJson(withVector));
        if (typeof parsed.embedding === "object" && parsed.embedding !== null) {
          expect(Object.keys(parsed.embedding)).toEqual(["dim", "sparse"]);
          expect(JSON.stringify({ ...JSON.parse(dense), embedding: parsed.embedding })).toBe(text);
        } else {
          expect(text).toBe(dense);
        }
        const back = entryFromJson(parsed);
        expect(
          back.embedding === null ? null : Array.from(new Uint8Array(back.embedding.buffer, back.embedding.byteOffset, back.embedding.byteLength)),
        ).toEqual(
          withVector.embedding === null
            ? null
            : Array.from(new Uint8Array(withVector.embedding.buffer, withVector.embedding.byteOffset, withVector.embedding.byteLength)),
        );
      }),
      { numRuns: 300 },
    );
    const sparse = new Float32Array(64);
    sparse[5] = 0.25;
    const line = entryJsonText({ ...entryOf(), embedding: sparse }, true);
    expect(line).toContain('"embedding":{"dim":64,"sparse":"');
    expect(entryJsonText({ ...entryOf(), embedding: sparse })).not.toContain('"sparse"'); // exports stay dense
  });

  it("refuses a sparse embedding object with missing, extra or bad fields", () => {
    const good = JSON.parse(entryJsonText({ ...entryOf(), embedding: Float32Array.from([0, 0, 0, 0, 0, 1]) }, true)) as Record<string, unknown>;
    expect(good["embedding"]).toEqual({ dim: 6, sparse: expect.any(String) as unknown });
    const bad =
      (embedding: unknown): (() => EntryRecord) =>
      () =>
        entryFromJson({ ...good, embedding });
    const { sparse } = good["embedding"] as { sparse: string };
    expect(bad({ dim: 6, sparse, more: 1 })).toThrow(/"embedding"/);
    expect(bad({ sparse })).toThrow(/"embedding"/);
    expect(bad({ dim: "6", sparse })).toThrow(/"embedding"/);
    expect(bad({ dim: 5, sparse })).toThrow(/"embedding"/); // index 5 is past the end of 5 components
    expect(bad({ dim: 6, sparse: "@@@@" })).toThrow(/"embedding"/);
  });
});

describe("entryFromJson refuses what no store can hold", () => {
  const good = JSON.parse(entryJsonText({ ...entryOf(), embedding: Float32Array.of(1, 0.5, 0, -0.25) })) as Record<string, unknown>;
  const bad =
    (patch: Record<string, unknown>): (() => EntryRecord) =>
    () =>
      entryFromJson({ ...good, ...patch });

  it("vectors holding NaN or Infinity, in every form (dense base64, sparse, v1 number arrays)", () => {
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const dense = Float32Array.of(1, x, 0, 0);
      expect(bad({ embedding: vectorToBase64(dense) })).toThrow(/"embedding"/);
      expect(bad({ embedding: { dim: 4, sparse: sparseOf(1, x) } })).toThrow(/"embedding"/);
    }
    // finite as a double, infinite as float32
    expect(bad({ embedding: [1, 1e39, 0, 0] })).toThrow(/"embedding"/);
    expect(bad({ embedding: [1, -3.5e38, 0, 0] })).toThrow(/"embedding"/);
    expect(entryFromJson({ ...good, embedding: [1, 3.4e38, 0, 0] }).embedding).toHaveLength(4);
  });

  it("metadata nested deeper than 64 levels (add and import allow 32)", () => {
    const nest = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    expect(entryFromJson({ ...good, metadata: { x: nest(64) } }).metadata["x"]).toBeDefined();
    expect(bad({ metadata: { x: nest(65) } })).toThrow(/"metadata"/);
    expect(bad({ metadata: { x: nest(200_000) } })).toThrow(/"metadata"/);
  });
});

function sparseOf(index: number, value: number): string {
  const bytes = new Uint8Array(6);
  const view = new DataView(bytes.buffer);
  view.setFloat32(0, value, true);
  view.setUint16(4, index, true);
  return bytesToBase64(bytes);
}

function entryOf(): EntryRecord {
  return {
    id: "m1",
    userId: "u",
    content: "c",
    kind: "fact",
    status: "active",
    createdAt: 1,
    updatedAt: 1,
    seq: 1,
    metadata: {},
    lifecycle: {},
    embedding: null,
  };
}

describe("entryFromJson, objects shared between records", () => {
  const text = (seq: number, lifecycle: object, metadata: object = {}): string =>
    entryJsonText(
      {
        ...entryRecord({ id: `e${seq}`, userId: "ann", seq }),
        lifecycle: lifecycle as EntryRecord["lifecycle"],
        metadata: metadata as EntryRecord["metadata"],
      },
      true,
    );
  const line = (seq: number, lifecycle: object, metadata: object = {}): unknown => JSON.parse(text(seq, lifecycle, metadata));

  it("shares one frozen empty metadata and one frozen lifecycle for equal runs, and writes and copies them as before", () => {
    const a = entryFromJson(line(1, { extractor: "patterns" }));
    const b = entryFromJson(line(2, { extractor: "patterns" }));
    const c = entryFromJson(line(3, { extractor: "llm", sourceSpan: "x" }));
    // A line written by hand with the fields in another order (moomem writes them in one order).
    const d = entryFromJson({ ...(line(4, {}) as object), lifecycle: { source_span: "x", extractor: "llm" } });
    const e = entryFromJson(line(5, { extractor: "llm", truncated: { originalChars: 9 } }));
    const f = entryFromJson(line(6, {}, { tag: "x" }));
    expect(a.lifecycle).toBe(b.lifecycle);
    expect(a.metadata).toBe(b.metadata);
    expect(Object.isFrozen(a.lifecycle) && Object.isFrozen(a.metadata)).toBe(true);
    // Another value, another field order, or a field that is not a string or number: not shared.
    expect(c.lifecycle).not.toBe(b.lifecycle);
    expect(d.lifecycle).not.toBe(c.lifecycle);
    expect(Object.keys(d.lifecycle)).toEqual(["sourceSpan", "extractor"]);
    expect(Object.isFrozen(e.lifecycle)).toBe(false);
    expect(f.metadata).toEqual({ tag: "x" });
    expect(Object.isFrozen(f.metadata)).toBe(false);
    // Written back byte for byte.
    for (const [record, seq, lifecycle, metadata] of [
      [a, 1, { extractor: "patterns" }, {}],
      [d, 4, { extractor: "llm", sourceSpan: "x" }, {}],
      [e, 5, { extractor: "llm", truncated: { originalChars: 9 } }, {}],
    ] as const) {
      expect(entryJsonText(record, true)).toBe(text(seq, lifecycle, metadata));
    }
  });
});
