// Line splitting over arbitrary chunk boundaries, with exact byte offsets.

import { describe, it, expect } from "vitest";
import { decodeUtf8, encodeUtf8, splitLines, type RawLine } from "./line-reader.ts";

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function collect(bytes: Uint8Array, size: number): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const line of splitLines(chunked(bytes, size))) out.push({ ...line, bytes: line.bytes.slice() });
  return out;
}

describe("splitLines", () => {
  const text = 'first\n\nthird «é» line\n{"x":1}\nlast without newline';
  const bytes = encodeUtf8(text);

  it("gives the same lines and offsets for every chunk size", async () => {
    const expected = await collect(bytes, bytes.length);
    expect(expected.map((l) => decodeUtf8(l.bytes))).toEqual(["first", "", "third «é» line", '{"x":1}', "last without newline"]);
    expect(expected.map((l) => l.terminated)).toEqual([true, true, true, true, false]);
    expect(expected.map((l) => l.number)).toEqual([1, 2, 3, 4, 5]);
    for (const line of expected) {
      expect(bytes.subarray(line.start, line.start + line.bytes.length)).toEqual(line.bytes);
      expect(line.end - line.start).toBe(line.bytes.length + (line.terminated ? 1 : 0));
    }
    expect(expected.at(-1)?.end).toBe(bytes.length);
    for (let size = 1; size <= bytes.length; size++) {
      expect(await collect(bytes, size)).toEqual(expected);
    }
  });

  it("yields nothing for an empty file and no phantom line after a final newline", async () => {
    expect(await collect(new Uint8Array(0), 4)).toEqual([]);
    const lines = await collect(encodeUtf8("a\nb\n"), 3);
    expect(lines.map((l) => [decodeUtf8(l.bytes), l.terminated, l.end])).toEqual([
      ["a", true, 2],
      ["b", true, 4],
    ]);
  });

  it("reports invalid UTF-8 as null instead of replacement characters", () => {
    expect(decodeUtf8(new Uint8Array([0x61, 0xc3]))).toBeNull();
    expect(decodeUtf8(new Uint8Array([0xff, 0x00]))).toBeNull();
    expect(decodeUtf8(encodeUtf8("ok é"))).toBe("ok é");
  });
});
