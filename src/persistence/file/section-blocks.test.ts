// Format 6's block line: round trip (vectors bit for bit, text forms as the tokenizer gives them) and hostile lines refused.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import type { EntryRecord } from "../../types.ts";
import { normalizeForDedup, tokenize } from "../../text/tokenizer.ts";
import { entryFromJson, entryJsonText } from "../record-codec.ts";
import { base64ToBytes, bytesToBase64 } from "../base64.ts";
import { takeTextFormsInto, textFormsOf, textFormsSlot } from "../text-forms.ts";
import { decodeUtf8, encodeUtf8 } from "../line-reader.ts";
import { BLOCKS_PREFIX, SectionBlocks, encodeBlocksLine, isAscii } from "./section-blocks.ts";
import { seededRandom } from "../../../test/helpers/seeded-random.ts";
import { entryRecord } from "../../../test/helpers/entry-record.ts";

function record(seq: number, content: string, embedding: Float32Array | null, status: EntryRecord["status"] = "active"): EntryRecord {
  return entryRecord({ id: `e${seq}`, userId: "ann", seq, content, status, embedding, ...(status === "superseded" ? { supersededBy: "e1" } : {}) });
}

/** Decodes a section (block line + entry lines) as sectioned-snapshot.ts does. */
function decode(block: string, entries: readonly EntryRecord[], userId = "ann"): EntryRecord[] {
  const blocks = new SectionBlocks(block.slice(0, -1), userId, entries.length);
  const out = entries.map((e) => {
    const read = entryFromJson(JSON.parse(entryJsonText(e, true, false, true)), blocks);
    blocks.take(read);
    return read;
  });
  blocks.finish();
  return out;
}

function sample(): EntryRecord[] {
  const random = seededRandom(66);
  const sparse = new Float32Array(64);
  for (let i = 0; i < 64; i += 5) sparse[i] = random() - 0.5;
  sparse[7] = -0;
  const dense = Float32Array.from({ length: 64 }, () => random() - 0.5);
  dense[3] = 0;
  return [
    record(1, "I'm allergic to PEANUTS!", sparse),
    record(2, "  I live   in Berlin.  ", dense),
    record(3, "我对花生过敏。", null),
    record(4, "old fact", sparse, "superseded"),
    record(5, "forgotten", dense, "deleted"),
    record(6, "", new Float32Array(64)),
    record(7, "peanut peanut peanut coffee", new Float32Array(0), "unstructured"),
  ];
}

describe("the format-6 block line", () => {
  it("gives back every vector bit for bit (sparse with -0, dense with zeros, empty, none) and the tokenizer's forms for live ASCII entries", () => {
    const entries = sample();
    const read = decode(encodeBlocksLine("ann", entries), entries);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      const r = read[i]!;
      if (e.embedding === null) expect(r.embedding).toBeNull();
      else expect(new Uint8Array(r.embedding!.buffer, r.embedding!.byteOffset, r.embedding!.byteLength)).toEqual(new Uint8Array(e.embedding.buffer));
      const forms = textFormsOf(r);
      // Forms are stored for live entries whose text is ASCII only: any other text is tokenized by the reader's own runtime.
      if ((e.status === "active" || e.status === "unstructured") && isAscii(e.content)) {
        expect(forms, e.id).toBeDefined();
        const counts = new Map<string, number>();
        for (const t of tokenize(e.content)) counts.set(t, (counts.get(t) ?? 0) + 1);
        const stored = new Map<string, number>();
        for (let k = forms!.start; k < forms!.end; k++) stored.set(forms!.terms[forms!.ids[k]!]!, forms!.tfs[k]!);
        expect([...stored], e.id).toEqual([...counts]);
        expect(forms!.dedup, e.id).toBe(normalizeForDedup(e.content));
        // Taken into a slot: the same forms (a dedup form that is the content in lower case comes as null), then gone.
        const slot = textFormsSlot();
        expect(takeTextFormsInto(r, slot)).toBe(true);
        expect({ ...slot, dedup: slot.dedup ?? r.content.toLowerCase() }).toEqual(forms);
        expect(textFormsOf(r)).toBeUndefined();
        expect(takeTextFormsInto(r, slot)).toBe(false);
      } else {
        expect(forms, e.id).toBeUndefined();
      }
    }
  });

  it("stores sparse indices in one byte up to 256 components and in two beyond, both read back exactly", () => {
    const narrow = sample();
    expect(encodeBlocksLine("ann", narrow)).toContain('"indexBytes":1,');
    const wide = new Float32Array(70_000);
    wide[0] = 1;
    wide[300] = -0;
    wide[65_535] = 0.5;
    wide[69_999] = 2;
    const entries = [...narrow, record(8, "wide", wide.subarray(0, 65_536)), record(9, "wider than 16 bits", wide)];
    const block = encodeBlocksLine("ann", entries);
    expect(block).toContain('"indexBytes":2,');
    const read = decode(block, entries);
    for (let i = 0; i < entries.length; i++) expect(read[i]!.embedding, entries[i]!.id).toEqual(entries[i]!.embedding);
    expect(Object.is(read[7]!.embedding![300], -0)).toBe(true);
  });

  it("stores no forms for a text that is not ASCII, even when the record came with some, and the reader never uses any given for one", () => {
    const entries = [record(1, "Grüße aus Berlin", null), record(2, "plain ascii", null)];
    const block = encodeBlocksLine("ann", entries);
    expect((JSON.parse(block) as { dedup: unknown[] }).dedup).toEqual([1, 0]);
    const read = decode(block, entries);
    expect(textFormsOf(read[0]!)).toBeUndefined();
    expect(textFormsOf(read[1]!)).toBeDefined();
    // A crafted line giving the non-ASCII entry tokens and a form: read, but not used.
    const crafted = encodeBlocksLine("ann", [record(1, "Gruesse aus Berlin", null), entries[1]!]);
    expect(textFormsOf(decode(crafted, entries)[0]!)).toBeUndefined();
  });

  it("a line read with a block made by another tokenizer keeps its vectors but no forms (the entries are tokenized again)", () => {
    const entries = sample();
    const block = encodeBlocksLine("ann", entries).replace(/"forms":"[^"]+"/, '"forms":"t0-other"');
    const read = decode(block, entries);
    expect(read.map((r) => textFormsOf(r))).toEqual(read.map(() => undefined));
    expect(read[1]!.embedding).toEqual(entries[1]!.embedding);
  });

  it("refuses every hostile or damaged line with a plain Error, never a huge allocation, an out-of-range read or a hang", () => {
    const entries = sample();
    const good = encodeBlocksLine("ann", entries);
    const o = JSON.parse(good) as Record<string, unknown>;
    const line = (patch: Record<string, unknown>): string => `${JSON.stringify({ ...o, ...patch })}\n`;
    const bin = base64ToBytes(o["bin"] as string)!;
    const withBin = (bytes: Uint8Array): string => line({ bin: bytesToBase64(bytes) });
    const hostile: [string, string, string?][] = [
      ["not JSON", "{nope\n"],
      ["another user", line({ blocks: "bob" })],
      ["another count", line({ n: 3 })],
      ["a count of zero", line({ n: 0 })],
      ["2^53 values", line({ values: 2 ** 53 })],
      ["more values than bytes", line({ values: 1e9 })],
      ["more indices than bytes", line({ indices: 1e9 })],
      ["an index width of 3", line({ indexBytes: 3 })],
      ["wide indices over narrow bytes", line({ indexBytes: 2 })],
      ["more pairs than bytes", line({ pairs: 1e9 })],
      ["a negative count", line({ pairs: -1 })],
      ["terms not strings", line({ terms: [1, 2] })],
      ["dedup of the wrong length", line({ dedup: [] })],
      ["bin not base64", line({ bin: "%%%%" })],
      ["bin cut short", withBin(bin.subarray(0, bin.length - 3))],
      ["bin with bytes left over", withBin(Uint8Array.from([...bin, 0]))],
      ["bin of 0xff (an endless number)", withBin(new Uint8Array(bin.length).fill(0xff))],
      ["terms cut (ids out of range)", line({ terms: [] })],
      ["fewer pairs than the entries hold", line({ pairs: (o["pairs"] as number) - 1 })],
      ["a dedup form for an entry not live", line({ dedup: (o["dedup"] as unknown[]).map(() => "x") })],
      ["no dedup form for a live entry", line({ dedup: (o["dedup"] as unknown[]).map(() => null) })],
      ["forms said not stored, yet tokens given", line({ dedup: (o["dedup"] as unknown[]).map((d) => (d === 0 ? 1 : d)) })],
    ];
    for (const [label, text] of hostile) {
      expect(() => decode(text, entries), label).toThrow(Error);
    }
    // Every single byte of bin flipped in turn: refused, or the same vectors (a flip the format cannot see is caught by the section's CRC).
    for (let at = 0; at < bin.length; at += 3) {
      const damaged = Uint8Array.from(bin);
      damaged[at] = damaged[at]! ^ 0x5a;
      try {
        decode(withBin(damaged), entries);
      } catch (error) {
        expect(error, `byte ${at}`).toBeInstanceOf(Error);
      }
    }
  });

  it("reads a line from its bytes exactly as from its text: the same vectors and forms, or the same error, for any damage", () => {
    const entries = sample();
    const good = encodeBlocksLine("ann", entries).slice(0, -1);
    /** What reading the line gives: every record's vector bytes and forms, or the error's message. */
    const outcome = (make: () => SectionBlocks): unknown => {
      try {
        const blocks = make();
        const read = entries.map((e) => {
          const r = entryFromJson(JSON.parse(entryJsonText(e, true, false, true)), blocks);
          blocks.take(r);
          return r;
        });
        blocks.finish();
        return read.map((r) => [
          r.embedding === null ? null : [...new Uint8Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength)],
          textFormsOf(r),
        ]);
      } catch (error) {
        return (error as Error).message;
      }
    };
    // The text way, as sectioned-snapshot.ts read a block line before it read one from its bytes.
    const fromText = (bytes: Uint8Array): unknown =>
      outcome(() => {
        const text = decodeUtf8(bytes);
        if (text === null || !text.startsWith(BLOCKS_PREFIX)) throw new Error("the section does not start with its block line");
        return new SectionBlocks(text, "ann", entries.length);
      });
    const fromBytes = (bytes: Uint8Array): unknown => outcome(() => new SectionBlocks(bytes, "ann", entries.length));
    const at = good.indexOf(',"bin":"');
    const bin = good.slice(at + 8, -2);
    const lines = [
      good,
      // bin given twice (the last wins), bin first, bin inside a nested object, spaces around the key, bin escaped, bin not last.
      `${good.slice(0, at)},"bin":"AAAA"${good.slice(at)}`,
      `${good.slice(0, at)},"x":{"bin":"${bin}"}}`,
      `${good.slice(0, at)},"x":{"a":1,"bin":"QUFB"}${good.slice(at)}`,
      `${good.slice(0, at)} , "bin" : "${bin}"}`,
      `${good.slice(0, at)},"bin":"\u0041${bin.slice(1)}"}`,
      `${good.slice(0, at)},"bin":"${bin}","y":1}`,
      `${good.slice(0, at)},"bin":"${bin}"} `,
      `${good.slice(0, at)},"bin":"}`,
      `${good.slice(0, at)},"bin":""}`,
      `${good.slice(0, at)}],"bin":"${bin}"}`,
      `${good.slice(0, at)},"bin":"${bin}"}}`,
    ].map(encodeUtf8);
    for (const line of lines) expect(fromBytes(line), decodeUtf8(line)?.slice(-60)).toEqual(fromText(line));
    expect(fromBytes(lines[0]!)).not.toBeTypeOf("string");
    // Random damage: bytes replaced (quotes, escapes, braces, padding, bytes that are not UTF-8), cut, or a key put in.
    const special = [0x22, 0x5c, 0x7b, 0x7d, 0x2c, 0x3d, 0x41, 0x2d, 0x20, 0x0a, 0xff, 0xc3, 0x80, 0x00];
    const edit = fc.oneof(
      fc.tuple(fc.constant("set" as const), fc.nat(), fc.constantFrom(...special)),
      fc.tuple(fc.constant("cut" as const), fc.nat(), fc.nat({ max: 12 })),
      fc.tuple(fc.constant("key" as const), fc.nat(), fc.constantFrom(',"bin":"', ',"bin":"QUFB"', '"}', "\\")),
    );
    fc.assert(
      fc.property(fc.constantFrom(...lines), fc.array(edit, { minLength: 1, maxLength: 3 }), fc.boolean(), (line, edits, nearBin) => {
        let bytes = Uint8Array.from(line);
        for (const [kind, where, what] of edits) {
          // Half the edits land in the last few hundred bytes (the end of bin), the rest anywhere.
          const i = nearBin ? Math.max(0, bytes.length - 1 - (where % 300)) : where % (bytes.length + 1);
          if (kind === "set") bytes[Math.min(i, bytes.length - 1)] = what;
          else if (kind === "cut") bytes = Uint8Array.from([...bytes.subarray(0, i), ...bytes.subarray(i + what)]);
          else bytes = Uint8Array.from([...bytes.subarray(0, i), ...encodeUtf8(what), ...bytes.subarray(i)]);
        }
        expect(fromBytes(bytes)).toEqual(fromText(bytes));
      }),
      { numRuns: 400 },
    );
  });
});
