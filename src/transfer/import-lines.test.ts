import { describe, it, expect } from "vitest";
import { LineSplitter, type ImportLine } from "./import-lines.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";

function split(chunks: readonly string[], max = 1_000_000): ImportLine[] {
  const out: ImportLine[] = [];
  const splitter = new LineSplitter(max);
  for (const chunk of chunks) splitter.push(chunk, (line) => out.push(line));
  splitter.end((line) => out.push(line));
  return out;
}

/** Cuts `text` at random places (empty pieces included). */
function randomChunks(text: string, rnd: () => number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    const len = Math.floor(rnd() * rnd() * 40);
    out.push(text.slice(at, at + len));
    at += len;
  }
  return out;
}

describe("LineSplitter", () => {
  it("gives the lines of the text, numbered, however the text is cut into chunks", () => {
    for (let run = 0; run < 300; run++) {
      const rnd = seededRandom(7 + run);
      const lines = Array.from({ length: Math.floor(rnd() * 8) }, (_, i) => (rnd() < 0.2 ? "" : `{"n":${i},"t":"${"x".repeat(Math.floor(rnd() * 30))}"}x`));
      const text = lines.join("\n") + (rnd() < 0.5 ? "\n" : "");
      // Lines end in "x", so no chunk of them is a whole JSON object (that case is tested below).
      const expected = text.split("\n");
      if (text.endsWith("\n") || text.length === 0) expected.pop();
      const got = split(randomChunks(text, rnd));
      expect(
        got.map((l) => l.text),
        `run ${run}`,
      ).toEqual(expected);
      expect(got.map((l) => l.number)).toEqual(expected.map((_, i) => i + 1));
    }
  });

  it("takes a newline-less chunk that is a whole JSON object as a line, and the newline after it as its end", () => {
    expect(split(['{"a":1}', '{"b":2}']).map((l) => [l.number, l.text, l.value])).toEqual([
      [1, '{"a":1}', { a: 1 }],
      [2, '{"b":2}', { b: 2 }],
    ]);
    expect(split(['{"a":1}', "\n", '{"b":2}', "\r\n", "\n"]).map((l) => l.text)).toEqual(['{"a":1}', '{"b":2}', ""]);
    // a piece of a longer line is never taken alone once the line has started
    expect(split(['{"a":', '{"b":2}', "}\n"]).map((l) => l.text)).toEqual(['{"a":{"b":2}}']);
  });

  it("skips a byte order mark at the start only", () => {
    expect(split(["\ufeff{}\n\ufeffx\n"]).map((l) => l.text)).toEqual(["{}", "\ufeffx"]);
  });

  it("refuses a line over the limit as soon as it is known, naming it", () => {
    const splitter = new LineSplitter(10);
    const seen: string[] = [];
    splitter.push("short\n0123456789\n", (l) => seen.push(l.text));
    splitter.push("01234", (l) => seen.push(l.text));
    throwsWith(() => splitter.push("567890", (l) => seen.push(l.text)), "INVALID_ARGUMENT", "line 3 is longer than 10 characters");
    expect(seen).toEqual(["short", "0123456789"]);
    throwsWith(() => new LineSplitter(4).push("12345\n", () => undefined), "INVALID_ARGUMENT", "line 1 is longer than 4");
  });
});
