// Journal lines: round trip, every damaged byte caught, torn tails vs damage that later lines vouch past, runs of "c" lines all or nothing.

import { describe, it, expect } from "vitest";
import type { EntryRecord } from "../../types.ts";
import { FormatError } from "./format-error.ts";
import { concat, decodeUtf8, encodeUtf8, splitLines } from "../line-reader.ts";
import { crc32Update, crc32UpdateAscii } from "../crc32.ts";
import { entryToJson } from "../record-codec.ts";
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
    lifecycle: {},
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
    expect(parseJournalHeader('{"journal":2,"gen":3}')).toEqual({ gen: 3, version: 2 });
    expect(parseJournalHeader('{"journal":3,"gen":3}')).toEqual({ gen: 3, version: 3 });
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

  it("appends to a v3 journal in v3's shape (bookkeeping in metadata) and reads both shapes back as the same entry", async () => {
    const e: EntryRecord = { ...entry("a", 1), metadata: { channel: "chat" }, lifecycle: { extractor: "raw", judge: "similarity", conflict: ["b"] } };
    const v3 = encodeJournalRecord(3, { n: 1, synced: 0, time: 5, entries: [e] }, 3);
    const v4 = encodeJournalRecord(3, { n: 1, synced: 0, time: 5, entries: [e] });
    expect(decodeUtf8(v3)).toContain('"metadata":{"channel":"chat","extractor":"raw","judge":"similarity","conflict":["b"]}}');
    expect(decodeUtf8(v3)).not.toContain('"lifecycle"');
    expect(decodeUtf8(v4)).toContain('"metadata":{"channel":"chat"},"lifecycle":{"extractor":"raw","judge":"similarity","conflict":["b"]}');
    for (const [header, line] of [
      ['{"journal":3,"gen":3}\n', v3],
      [encodeJournalHeader(3), v4],
    ] as const) {
      const { applied } = await scan(concat([encodeUtf8(header), line]));
      expect(applied[0]![0]).toMatchObject({ metadata: { channel: "chat" }, lifecycle: e.lifecycle });
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
    const version = await scanError(concat([encodeUtf8('{"journal":5,"gen":3}\n'), lines[1]!]));
    expect((await scanError(concat([encodeUtf8('{"journal":1,"gen":3}\n'), lines[1]!]))).kind).toBe("version");
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

/** The text of a line without its newline. */
function text(line: Uint8Array): string {
  return decodeUtf8(line.subarray(0, line.length - 1)) ?? "";
}

/**
 * A journal of gen 3: records 1..2 single, synced one at a time; then one append (synced 2, time 50) writing
 * a run of three lines (records 3..5: 3 and 4 continue). `after` adds a later record 6 synced as given.
 */
function runJournal(after: { synced: number } | null = null): { bytes: Uint8Array; lines: Uint8Array[]; runStart: number } {
  const lines = [encodeUtf8(encodeJournalHeader(3))];
  lines.push(encodeJournalRecord(3, { n: 1, synced: 0, time: 10, entries: [entry("a1", 1)] }));
  lines.push(encodeJournalRecord(3, { n: 2, synced: 1, time: 20, entries: [entry("a2", 2), entry("a1", 1, "a1 changed")] }));
  lines.push(encodeJournalRecord(3, { n: 3, synced: 2, time: 50, continues: true, entries: [entry("r1", 3), entry("r2", 4)] }));
  lines.push(encodeJournalRecord(3, { n: 4, synced: 2, time: 50, continues: true, entries: [entry("r3", 5), entry("a2", 2, "a2 forgotten")] }));
  lines.push(encodeJournalRecord(3, { n: 5, synced: 2, time: 50, entries: [entry("r4", 6)] }));
  if (after !== null) lines.push(encodeJournalRecord(3, { n: 6, synced: after.synced, time: 60, entries: [entry("z", 7)] }));
  const runStart = lines[0]!.length + lines[1]!.length + lines[2]!.length;
  return { bytes: concat(lines), lines, runStart };
}

describe("journal format: operations split over several lines", () => {
  it('marks a continuing batch with "c":1 and leaves other lines exactly as before the flag existed', () => {
    const entries = [entry("a", 2, "héllo")];
    const flagged = encodeJournalRecord(3, { n: 2, synced: 1, time: 7, continues: true, entries });
    expect(text(flagged)).toMatch(/^\{"n":2,"s":1,"t":7,"c":1,"crc":\d+,"entries":\[/);
    const checked = checkJournalLine(3, flagged.subarray(0, flagged.length - 1));
    expect(typeof checked === "object" && checked.continues).toBe(true);

    // A line as a moomem without the flag wrote it, built by hand from the documented layout.
    const body = encodeUtf8(JSON.stringify(entries.map((e) => entryToJson(e))));
    const crc = crc32Update(crc32UpdateAscii(0, "3:2:1:7:"), body);
    const old = encodeUtf8(`{"n":2,"s":1,"t":7,"crc":${crc},"entries":${decodeUtf8(body) ?? ""}}`);
    const parsed = checkJournalLine(3, old);
    expect(parsed).toMatchObject({ n: 2, synced: 1, time: 7, continues: false });
    expect(concat([old, encodeUtf8("\n")])).toEqual(encodeJournalRecord(3, { n: 2, synced: 1, time: 7, entries }));
    expect(encodeJournalRecord(3, { n: 2, synced: 1, time: 7, continues: false, entries })).toEqual(concat([old, encodeUtf8("\n")]));
  });

  it("covers the flag with the CRC: adding, dropping or changing it is caught", () => {
    const flagged = text(encodeJournalRecord(3, { n: 4, synced: 2, time: 9, continues: true, entries: [entry("a", 4)] }));
    const plainLine = text(encodeJournalRecord(3, { n: 4, synced: 2, time: 9, entries: [entry("a", 4)] }));
    expect(checkJournalLine(3, encodeUtf8(flagged.replace('"c":1,', "")))).toMatch(/CRC mismatch/);
    expect(checkJournalLine(3, encodeUtf8(plainLine.replace('"t":9,', '"t":9,"c":1,')))).toMatch(/CRC mismatch/);
    for (const other of ['"c":0,', '"c":2,', '"c":true,', '"c": 1,']) {
      expect(checkJournalLine(3, encodeUtf8(flagged.replace('"c":1,', other))), other).toBe("not a journal record");
    }
    const bytes = encodeUtf8(flagged);
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice();
      copy[i] = copy[i]! ^ 0x01;
      expect(typeof checkJournalLine(3, copy), `byte ${i}`).toBe("string");
    }
  });

  it("applies a run all together, only once its last line is read", async () => {
    const { bytes } = runJournal();
    const { applied, scan: result } = await scan(bytes);
    expect(applied.map((b) => b.map((e) => e.id))).toEqual([["a1"], ["a2", "a1"], ["r1", "r2", "r3", "a2", "r4"]]);
    expect(applied[2]![3]!.content).toBe("a2 forgotten");
    expect(result).toMatchObject({ records: 5, goodEnd: bytes.length, torn: null, lastTime: 50 });
  });

  it("reads runs back to back and next to single records in one group", async () => {
    const header = encodeUtf8(encodeJournalHeader(3));
    const group = [
      encodeJournalRecord(3, { n: 1, synced: 0, time: 5, continues: true, entries: [entry("x1", 1)] }),
      encodeJournalRecord(3, { n: 2, synced: 0, time: 5, entries: [entry("x2", 2)] }),
      encodeJournalRecord(3, { n: 3, synced: 0, time: 5, entries: [entry("s", 3)] }),
      encodeJournalRecord(3, { n: 4, synced: 0, time: 5, continues: true, entries: [entry("y1", 4)] }),
      encodeJournalRecord(3, { n: 5, synced: 0, time: 5, entries: [entry("y2", 5)] }),
    ];
    const { applied, scan: result } = await scan(concat([header, ...group]));
    expect(applied.map((b) => b.map((e) => e.id))).toEqual([["x1", "x2"], ["s"], ["y1", "y2"]]);
    expect(result.records).toBe(5);
    expect(result.torn).toBeNull();
  });

  it("cuts a run torn at every byte offset of its lines back to before its first line", async () => {
    const { bytes, runStart } = runJournal();
    for (let cut = runStart; cut < bytes.length; cut++) {
      const { applied, scan: result } = await scan(bytes.subarray(0, cut));
      expect(
        applied.map((b) => b[0]!.id),
        `cut at ${cut}`,
      ).toEqual(["a1", "a2"]);
      expect(result.goodEnd, `cut at ${cut}`).toBe(runStart);
      expect(result.records, `cut at ${cut}`).toBe(2);
      expect(result.lastTime).toBe(20);
      if (cut === runStart) {
        expect(result.torn).toBeNull();
      } else {
        // Cut at a line boundary inside the run, the tail starts at the run's first line (line 4).
        expect(result.torn, `cut at ${cut}`).not.toBeNull();
      }
    }
    const { lines } = runJournal();
    const afterTwo = runStart + lines[3]!.length + lines[4]!.length;
    const { scan: boundary } = await scan(bytes.subarray(0, afterTwo));
    expect(boundary.torn?.line).toBe(4);
    expect(boundary.torn?.reason).toMatch(/operation that began on line 4 was never finished \(line 5/);
  });

  it("treats a damaged run line that nothing vouches for as a torn tail starting at the run", async () => {
    const { lines, runStart } = runJournal({ synced: 2 });
    const damaged = lines.map((l) => l.slice());
    damaged[4]!.fill(0x20, 30, 40); // record 4, the run's middle line
    const { applied, scan: result } = await scan(concat(damaged));
    expect(applied.length).toBe(2);
    expect(result.goodEnd).toBe(runStart);
    expect(result.torn?.line).toBe(5);
    expect(result.torn?.reason).toMatch(/operation that began on line 4 is incomplete/);
  });

  it("calls a damaged run line damage when a later durable record vouches for the run", async () => {
    const { lines } = runJournal({ synced: 5 });
    const damaged = lines.map((l) => l.slice());
    damaged[5]![12] = damaged[5]![12]! ^ 0x02; // record 5, the run's last line
    const error = await scanError(concat(damaged));
    expect(error.line).toBe(6);
    expect(error.message).toMatch(/line 7 was written after record 3 had been made durable/);
  });

  it("treats an unfinished run followed by another write's line as torn, or as damage when that line vouches for the run", async () => {
    const { lines, runStart } = runJournal();
    // Records 3 and 4 say the operation goes on, but record 5 comes from another append (other time).
    const stranger = encodeJournalRecord(3, { n: 5, synced: 2, time: 70, entries: [entry("q", 9)] });
    const torn = await scan(concat([...lines.slice(0, 5), stranger]));
    expect(torn.applied.length).toBe(2);
    expect(torn.scan.goodEnd).toBe(runStart);
    expect(torn.scan.records).toBe(2);
    expect(torn.scan.torn?.line).toBe(6);
    expect(torn.scan.torn?.reason).toMatch(/another write than the records before it.*began on line 4/);

    const otherSync = encodeJournalRecord(3, { n: 5, synced: 1, time: 50, entries: [entry("q", 9)] });
    expect((await scan(concat([...lines.slice(0, 5), otherSync]))).scan.goodEnd).toBe(runStart);

    const vouching = encodeJournalRecord(3, { n: 5, synced: 3, time: 70, entries: [entry("q", 9)] });
    const error = await scanError(concat([...lines.slice(0, 5), vouching]));
    expect(error.line).toBe(6);
    expect(error.message).toMatch(/line 6 was written after record 3 had been made durable/);

    const laterVouch = encodeJournalRecord(3, { n: 6, synced: 5, time: 80, entries: [entry("w", 10)] });
    const later = await scanError(concat([...lines.slice(0, 5), stranger, laterVouch]));
    expect(later.line).toBe(6);
    expect(later.message).toMatch(/line 7 was written after record 3/);
  });
});
