// CRC-32 against known check values and a bit-by-bit reference.

import { describe, it, expect } from "vitest";
import { crc32, crc32Combine, crc32Update, crc32UpdateAscii, crc32UpdateJs, useNativeCrc32 } from "./crc32.ts";

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

describe("crc32Combine", () => {
  it("gives the CRC of two byte runs one after the other from their own CRCs and the second's length (seeded, empty runs too)", () => {
    let seed = 99;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
    const check = new TextEncoder().encode("123456789");
    expect(crc32Combine(crc32Update(0, check.subarray(0, 5)), crc32Update(0, check.subarray(5)), 4)).toBe(0xcbf43926);
    for (let run = 0; run < 300; run++) {
      const a = bytes(Math.floor(random() * 3000));
      const b = bytes(run % 10 === 0 ? 0 : Math.floor(random() * (run % 7 === 0 ? 70_000 : 300)));
      const both = new Uint8Array(a.length + b.length);
      both.set(a);
      both.set(b, a.length);
      expect(crc32Combine(crc32Update(0, a), crc32Update(0, b), b.length)).toBe(crc32Update(0, both));
    }
  });

  it("is associative at lengths past 32 bits (a snapshot's parts may pass 4 GiB in all)", () => {
    let seed = 7;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let run = 0; run < 200; run++) {
      const [c1, c2, c3] = [random(), random(), random()].map((x) => Math.floor(x * 2 ** 32)) as [number, number, number];
      const l2 = Math.floor(random() * 2 ** 40);
      const l3 = Math.floor(random() * 2 ** 40);
      expect(crc32Combine(crc32Combine(c1, c2, l2), c3, l3)).toBe(crc32Combine(c1, crc32Combine(c2, c3, l3), l2 + l3));
    }
  });
});
