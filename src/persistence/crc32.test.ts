// CRC-32 against known check values and a bit-by-bit reference.

import { describe, it, expect } from "vitest";
import { crc32, crc32Update, crc32UpdateAscii, crc32UpdateJs, useNativeCrc32 } from "./crc32.ts";

function reference(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

describe("crc32", () => {
  it("matches the standard check values", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(new TextEncoder().encode("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
  });

  it("agrees with a bitwise reference at every length and split point", () => {
    const bytes = new Uint8Array(67);
    let x = 12345;
    for (let i = 0; i < bytes.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      bytes[i] = x >>> 24;
    }
    for (let n = 0; n <= bytes.length; n++) {
      const part = bytes.subarray(0, n);
      expect(crc32(part)).toBe(reference(part));
      for (const cut of [0, 1, 7, 8, 9, Math.floor(n / 2)]) {
        if (cut > n) continue;
        expect(crc32Update(crc32(part.subarray(0, cut)), part.subarray(cut))).toBe(reference(part));
      }
    }
  });

  it("computes ASCII text without allocating bytes, with the same result", () => {
    const text = "7:12:3:1700000000000:";
    expect(crc32UpdateAscii(0, text)).toBe(crc32(new TextEncoder().encode(text)));
    const rest = new TextEncoder().encode('[{"x":"é"}]');
    expect(crc32Update(crc32UpdateAscii(0, text), rest)).toBe(crc32(new TextEncoder().encode(text + '[{"x":"é"}]')));
  });

  it("changes when any single bit changes", () => {
    const bytes = new TextEncoder().encode('{"n":1,"entries":[]}');
    const base = crc32(bytes);
    for (let i = 0; i < bytes.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const copy = bytes.slice();
        copy[i] = copy[i]! ^ (1 << bit);
        expect(crc32(copy)).not.toBe(base);
      }
    }
  });

  it("uses a platform CRC only when it gives the table loop's results, for long inputs", () => {
    const calls: number[] = [];
    const good = (bytes: Uint8Array, crc: number): number => {
      calls.push(bytes.length);
      return crc32UpdateJs(crc, bytes);
    };
    try {
      expect(useNativeCrc32(good)).toBe(true);
      calls.length = 0;
      const long = new Uint8Array(4096).map((_, i) => (i * 7) & 0xff);
      expect(crc32Update(5, long)).toBe(crc32UpdateJs(5, long));
      expect(crc32Update(0, long.subarray(0, 10))).toBe(reference(long.subarray(0, 10)));
      expect(calls).toEqual([4096]);
      // A platform CRC that differs (here, one that does not continue a CRC) is refused: the table loop stays.
      expect(useNativeCrc32((bytes) => crc32UpdateJs(0, bytes))).toBe(false);
      expect(useNativeCrc32(() => 0)).toBe(false);
      expect(
        useNativeCrc32(() => {
          throw new Error("missing");
        }),
      ).toBe(false);
      expect(crc32Update(0, long)).toBe(reference(long));
    } finally {
      useNativeCrc32(null);
    }
  });
});
