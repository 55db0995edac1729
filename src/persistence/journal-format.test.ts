// Journal lines: round trip, every damaged byte caught, torn tails vs damage that later lines vouch past.

import { describe, it, expect } from "vitest";
import type { EntryRecord } from "../types.ts";
import { FormatError } from "./format-error.ts";
import { concat, encodeUtf8, splitLines } from "./line-reader.ts";
import { JournalScanner, checkJournalLine, encodeJournalHeader, encodeJournalRecord, parseJournalHeader, type JournalScan } from "./journal-format.ts";

function entry(id: string, seq: number, content = `fact ${seq}`): EntryRecord {
  return {
    id,
    userId: "user-1",
    content,
    kind: "fact",
    status: "active",
    createdAt: 1000 + seq,
    updatedAt: 1000 + seq,
    seq,
    metadata: { n: seq },
    embedding: Float32Array.from([seq, -0.5, 0.25]),
  };
}

interface Scanned {
  applied: EntryRecord[][];
  scan: JournalScan;
}

async function scan(bytes: Uint8Array, gen = 3): Promise<Scanned> {
  const scanner = new JournalScanner(gen);
  const applied: EntryRecord[][] = [];
  async function* one(): AsyncGenerator<Uint8Array> {
    yield bytes;
  }
  for await (const line of splitLines(one())) {
    const entries = scanner.accept(line);
    if (entries !== null) applied.push(entries);
  }
  return { applied, scan: scanner.finish() };
}

async function scanError(bytes: Uint8Array, gen = 3): Promise<FormatError> {
  try {
    await scan(bytes, gen);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected the scan to fail");
}

/** A journal of gen 3 with `count` records written one group at a time (each synced before the next). */
function journal(count: number, gen = 3): { bytes: Uint8Array; lines: Uint8Array[] } {
  const lines = [encodeUtf8(encodeJournalHeader(gen))];
  for (let n = 1; n <= count; n++) {
    lines.push(encodeJournalRecord(gen, { n, synced: n - 1, time: 1_700_000_000_000 + n, entries: [entry(`e${n}`, n, `fact ${n} «ü» 🥜`)] }));
  }
  return { bytes: concat(lines), lines };
}

describe("journal format", () => {
  it("round-trips records and tells where the good part ends", async () => {
    const { bytes } = journal(4);
    const { applied, scan: result } = await scan(bytes);
    expect(applied.map((batch) => batch.map((e) => e.id))).toEqual([["e1"], ["e2"], ["e3"], ["e4"]]);
    expect(applied[2]![0]!.content).toBe("fact 3 «ü» 🥜");
    expect(Array.from(applied[0]![0]!.embedding!)).toEqual([1, -0.5, 0.25]);
    expect(result).toMatchObject({ gen: 3, records: 4, goodEnd: bytes.length, torn: null, lastTime: 1_700_000_000_004 });
    expect(result.headerEnd).toBe(encodeUtf8(encodeJournalHeader(3)).length);
    expect(parseJournalHeader('{"journal":2,"gen":3}')).toEqual({ gen: 3 });
  });

  it("catches a changed byte anywhere in a record line", () => {
    const line = encodeJournalRecord(3, { n: 2, synced: 1, time: 1_700_000_000_000, entries: [entry("a", 2, "héllo")] });
    const body = line.subarray(0, line.length - 1);
    expect(typeof checkJournalLine(3, body)).toBe("object");
    for (let i = 0; i < body.length; i++) {
      for (const flip of [1, 0x20, 0x80]) {
        const copy = body.slice();
        copy[i] = copy[i]! ^ flip;
        expect(typeof checkJournalLine(3, copy), `byte ${i} ^ ${flip}`).toBe("string");
      }
    }
  });

  it("rejects a record copied from a journal of another gen", () => {
    const line = encodeJournalRecord(2, { n: 1, synced: 0, time: 5, entries: [entry("a", 1)] });
    expect(checkJournalLine(3, line.subarray(0, line.length - 1))).toMatch(/CRC mismatch/);
  });

  it("cuts a torn last record at every byte offset", async () => {
    const { bytes, lines } = journal(3);
    const lastStart = bytes.length - lines[3]!.length;
    for (let cut = lastStart; cut < bytes.length; cut++) {
      const { applied, scan: result } = await scan(bytes.subarray(0, cut));
      expect(applied.length, `cut at ${cut}`).toBe(2);
      expect(result.goodEnd).toBe(lastStart);
      expect(result.torn === null).toBe(cut === lastStart);
    }
  });

  it("treats garbage and NUL tails as torn", async () => {
    const { bytes } = journal(2);
    for (const tail of [new Uint8Array(100), encodeUtf8("garbage\n\n{not json}\n"), new Uint8Array([0, 10, 0, 10, 0xff, 0xfe])]) {
      const { applied, scan: result } = await scan(concat([bytes, tail]));
      expect(applied.length).toBe(2);
      expect(result.goodEnd).toBe(bytes.length);
      expect(result.torn).not.toBeNull();
    }
  });

  it("calls a bad line damage when a later durable record vouches past it", async () => {
    const { lines } = journal(4);
    const damaged = lines.map((l) => l.slice());
    damaged[2]![10] = 0x21; // record 2
    const error = await scanError(concat(damaged));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/line 4 was written after record 2 had been made durable/);
  });

  it("calls an empty middle line damage", async () => {
    const { lines } = journal(3);
    const error = await scanError(concat([lines[0]!, lines[1]!, encodeUtf8("\n"), lines[2]!, lines[3]!]));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/empty line/);
  });

  it("treats damage inside one unsynced group as a torn tail", async () => {
    // Records 2..4 written as one group (all say 1 record was durable): a power loss may tear the middle one.
    const header = encodeUtf8(encodeJournalHeader(3));
    const r1 = encodeJournalRecord(3, { n: 1, synced: 0, time: 1, entries: [entry("a", 1)] });
    const group = [2, 3, 4].map((n) => encodeJournalRecord(3, { n, synced: 1, time: 2, entries: [entry(`g${n}`, n)] }));
    const torn = group[1]!.slice();
    torn.fill(0, 5, 20);
    const { applied, scan: result } = await scan(concat([header, r1, group[0]!, torn, group[2]!]));
    expect(applied.map((b) => b[0]!.id)).toEqual(["a", "g2"]);
    expect(result.torn?.line).toBe(4);
    expect(result.goodEnd).toBe(header.length + r1.length + group[0]!.length);
  });

  it("treats a broken sequence at the end as torn, and in the middle as damage", async () => {
    const { lines } = journal(3);
    const dup = await scan(concat([...lines, lines[3]!]));
    expect(dup.applied.length).toBe(3);
    expect(dup.scan.torn?.reason).toMatch(/record number 3 where 4 was expected/);
    const skipped = await scanError(concat([lines[0]!, lines[1]!, lines[3]!, encodeJournalRecord(3, { n: 4, synced: 3, time: 9, entries: [] })]));
    expect(skipped.line).toBe(3);
  });

  it("refuses a bad header, another version, or a gen that disagrees with the file name", async () => {
    const { lines } = journal(1);
    const version = await scanError(concat([encodeUtf8('{"journal":3,"gen":3}\n'), lines[1]!]));
    expect(version.kind).toBe("version");
    expect(version.line).toBe(1);
    expect((await scanError(concat([encodeUtf8('{"journal":2,"gen":4}\n'), lines[1]!]))).message).toMatch(/names gen 4/);
    expect((await scanError(encodeUtf8('{"journal":2,"gen":3}'))).message).toMatch(/no newline/);
    expect((await scanError(new Uint8Array(0))).message).toMatch(/empty/);
    expect((await scanError(encodeUtf8("nonsense\n"))).kind).toBe("damage");
  });

  it("refuses a record whose CRC holds but whose entries cannot be read", async () => {
    const header = encodeUtf8(encodeJournalHeader(3));
    const bad = { ...entry("a", 1), kind: "nonsense" } as unknown as EntryRecord;
    const error = await scanError(concat([header, encodeJournalRecord(3, { n: 1, synced: 0, time: 1, entries: [bad] })]));
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/entry 1: field "kind"/);
  });
});
