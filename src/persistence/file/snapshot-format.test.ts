// Snapshot slots: v2 round trip and completeness rules, the seed's v1 with its half-line rule.

import { describe, it, expect } from "vitest";
import type { EntryRecord } from "../../types.ts";
import { FormatError } from "./format-error.ts";
import { concat, encodeUtf8, splitLines } from "../line-reader.ts";
import { SnapshotScanner, encodeSnapshot, parseSnapshotHeader, type SnapshotScan } from "./snapshot-format.ts";

function entry(id: string, seq: number, extra: Partial<EntryRecord> = {}): EntryRecord {
  return {
    id,
    userId: "user-1",
    content: `fact ${seq} 我对花生过敏`,
    kind: "fact",
    status: "active",
    createdAt: 10 + seq,
    updatedAt: 20 + seq,
    seq,
    metadata: {},
    lifecycle: {},
    embedding: Float32Array.from([seq / 3, 0, -1]),
    ...extra,
  };
}

const EMBEDDER = { id: "hashing-v1:3", dim: 3 };

function snapshot(entries: EntryRecord[], gen = 5, clock: number | null = 1_700_000_000_000): Uint8Array[] {
  return [...encodeSnapshot({ gen, clock }, { embedder: EMBEDDER, count: entries.length, entries })];
}

async function scan(bytes: Uint8Array, decode = true): Promise<{ entries: EntryRecord[]; result: SnapshotScan }> {
  const scanner = new SnapshotScanner({ decode });
  const entries: EntryRecord[] = [];
  async function* one(): AsyncGenerator<Uint8Array> {
    yield bytes;
  }
  for await (const line of splitLines(one())) {
    const e = scanner.accept(line);
    if (e !== null) entries.push(e);
  }
  return { entries, result: scanner.finish() };
}

async function scanError(bytes: Uint8Array, decode = true): Promise<FormatError> {
  try {
    await scan(bytes, decode);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected the scan to fail");
}

function plain(e: EntryRecord): unknown {
  return { ...e, embedding: e.embedding === null ? null : Array.from(e.embedding) };
}

describe("snapshot format v2 and v3", () => {
  const entries = [entry("a", 1), entry("b", 2, { key: "home_city", supersededBy: "c", status: "superseded" }), entry("c", 5, { embedding: null })];

  it("round-trips header, entries and footer", async () => {
    const lines = snapshot(entries);
    expect(lines).toHaveLength(5);
    const { entries: read, result } = await scan(concat(lines));
    expect(read.map(plain)).toEqual(entries.map(plain));
    expect(result).toEqual({
      header: { version: 4, gen: 5, clock: 1_700_000_000_000, count: 3, embedder: EMBEDDER },
      entries: 3,
      truncated: 0,
    });
    const empty = await scan(concat(snapshot([], 1, null)));
    expect(empty.result.header).toEqual({ version: 4, gen: 1, clock: null, count: 0, embedder: EMBEDDER });
  });

  it("is incomplete at every cut before the end of its footer", async () => {
    const bytes = concat(snapshot(entries));
    for (let cut = 0; cut < bytes.length; cut++) {
      await expect(scan(bytes.subarray(0, cut)), `cut at ${cut}`).rejects.toBeInstanceOf(FormatError);
      await expect(scan(bytes.subarray(0, cut), false)).rejects.toBeInstanceOf(FormatError);
    }
  });

  it("catches a changed byte anywhere, even when only checking", async () => {
    const bytes = concat(snapshot(entries));
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice();
      copy[i] = copy[i]! ^ 0x01;
      await expect(scan(copy, false), `byte ${i}`).rejects.toBeInstanceOf(FormatError);
    }
  });

  it("refuses data after the footer, an empty line, and unknown versions", async () => {
    const lines = snapshot(entries);
    expect((await scanError(concat([...lines, encodeUtf8("{}\n")]))).message).toMatch(/after the footer/);
    expect((await scanError(concat([lines[0]!, encodeUtf8("\n"), ...lines.slice(1)]))).line).toBe(2);
    const v7 = await scanError(encodeUtf8('{"v":7,"gen":1,"clock":0,"count":0,"embedder":{"id":"x","dim":1}}\n{"end":true,"count":0,"crc":0}\n'));
    expect(v7.kind).toBe("version");
    expect(v7.message).toMatch(/version 7 is not supported/);
  });

  it("refuses entries out of seq order when reading and when writing", async () => {
    const lines = snapshot(entries);
    const swapped = concat([lines[0]!, lines[2]!, lines[1]!, lines[3]!, lines[4]!]);
    // Decoding notices the order before the footer's CRC would.
    const error = await scanError(swapped);
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/seq 1 is not after seq 2/);
    await expect(scan(swapped, false)).rejects.toThrow(/CRC mismatch/);
    expect(() => snapshot([entry("a", 2), entry("b", 1)])).toThrow(/increasing seq order/);
    expect(() => [...encodeSnapshot({ gen: 1, clock: null }, { embedder: EMBEDDER, count: 3, entries: [entry("a", 1)] })]).toThrow(
      /promised 3 entries but gave 1/,
    );
    expect(() => [...encodeSnapshot({ gen: 1, clock: null }, { embedder: EMBEDDER, count: 1, entries: [entry("a", 1), entry("b", 2)] })]).toThrow(/gave more/);
  });
});

describe("seed snapshot format v1", () => {
  const header = '{"v":1,"gen":4,"clock":2}\n';
  const line1 =
    '{"id":"000000000001-6091","user_id":"user-42","content":"我对花生过敏","kind":"unstructured","embedding":[0,0.5,0],"keywords":["我","对"],"status":"active","created_at":1,"superseded_by":null,"seq":1,"metadata":{"extractor":"raw"}}\n';
  const line2 =
    '{"id":"000000000002-1a2b","user_id":"user-42","content":"I live in Berlin","kind":"fact","embedding":[1,0,0],"keywords":["live"],"status":"active","created_at":2,"superseded_by":null,"seq":2,"metadata":{"extractor":"raw"}}\n';

  it("reads entries with array embeddings and no footer", async () => {
    const { entries, result } = await scan(encodeUtf8(header + line1 + line2));
    expect(result).toEqual({ header: { version: 1, gen: 4, clock: 2, count: null, embedder: null }, entries: 2, truncated: 0 });
    expect(entries.map((e) => [e.id, e.content, e.updatedAt, Array.from(e.embedding!)])).toEqual([
      ["000000000001-6091", "我对花生过敏", 1, [0, 0.5, 0]],
      ["000000000002-1a2b", "I live in Berlin", 2, [1, 0, 0]],
    ]);
    // The seed may have left the last line without a newline: still a whole line.
    expect((await scan(encodeUtf8(header + line1 + line2.trimEnd()))).entries).toHaveLength(2);
  });

  it("drops and counts a half-written last line at every cut", async () => {
    const whole = encodeUtf8(header + line1 + line2);
    const start = whole.length - encodeUtf8(line2).length;
    for (let cut = start + 1; cut < whole.length - 1; cut++) {
      const { entries, result } = await scan(whole.subarray(0, cut));
      expect(
        entries.map((e) => e.seq),
        `cut at ${cut}`,
      ).toEqual([1]);
      expect(result.truncated).toBe(1);
    }
  });

  it("refuses a bad or empty line before the last one", async () => {
    expect((await scanError(encodeUtf8(header + "{broken\n" + line2))).line).toBe(2);
    expect((await scanError(encodeUtf8(header + "\n" + line2))).line).toBe(2);
    expect((await scanError(encodeUtf8('{"v":1,"gen":4}\n' + line1))).message).toMatch(/clock/);
    expect(parseSnapshotHeader('{"v":1,"gen":0,"clock":0}').version).toBe(1);
  });
});
