// The Node file system's CRC-32 (zlib's, when Node has it) gives the table loop's results byte for byte.

import { describe, it, expect } from "vitest";
import * as zlib from "node:zlib";
import "../../src/persistence/file/node-file-system.ts";
import { crc32Update, crc32UpdateJs, useNativeCrc32 } from "../../src/persistence/crc32.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

describe("crc32 in Node", () => {
  it("agrees with the table loop at every length and continuation, through zlib where Node has it", () => {
    const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
    if (typeof zlibCrc32 === "function") expect(useNativeCrc32((bytes, crc) => zlibCrc32(bytes, crc) >>> 0)).toBe(true);
    const random = seededRandom(17);
    const bytes = new Uint8Array(70_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    for (const n of [0, 1, 255, 256, 257, 1000, 4096, 65_537, 70_000]) {
      const part = bytes.subarray(0, n);
      expect(crc32Update(0, part)).toBe(crc32UpdateJs(0, part));
      for (const start of [0, 1, 0xffffffff, 0xcbf43926]) expect(crc32Update(start, part)).toBe(crc32UpdateJs(start, part));
      const cut = Math.floor(n / 3);
      expect(crc32Update(crc32Update(0, part.subarray(0, cut)), part.subarray(cut))).toBe(crc32UpdateJs(0, part));
    }
  });
});
