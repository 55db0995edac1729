// NodeFileSystem.readRanges answers small reads on the event loop and large ones through the thread pool: both paths
// must hand back exactly the bytes asked for, and a range running past the end of the file comes back short.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { seededRandom } from "../helpers/seeded-random.ts";

const dir = mkdtempSync(join(tmpdir(), "moomem-reads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIZE = 300 * 1024;
const random = seededRandom(17);
const bytes = new Uint8Array(SIZE);
for (let i = 0; i < SIZE; i++) bytes[i] = Math.floor(random() * 256);
const path = join(dir, "slot0.jsonl");
writeFileSync(path, bytes);
const fs = new NodeFileSystem();

describe("NodeFileSystem.readRanges", () => {
  it("reads small ranges (on the event loop) and large ones (off it) byte for byte", async () => {
    const cases = [
      [{ start: 0, length: 10 }],
      [
        { start: 5, length: 1000 },
        { start: 70_000, length: 3000 },
      ],
      [{ start: 1, length: 64 * 1024 }],
      [{ start: 1, length: 64 * 1024 + 1 }],
      [
        { start: 100, length: 200 * 1024 },
        { start: 0, length: 7 },
      ],
    ];
    for (const ranges of cases) {
      const out = await fs.readRanges(path, ranges);
      expect(out.map((b) => Array.from(b))).toEqual(ranges.map(({ start, length }) => Array.from(bytes.subarray(start, start + length))));
    }
  });

  it("comes back short for a range past the end of the file, on both paths", async () => {
    const [small] = await fs.readRanges(path, [{ start: SIZE - 10, length: 100 }]);
    expect(Array.from(small!)).toEqual(Array.from(bytes.subarray(SIZE - 10)));
    const [large] = await fs.readRanges(path, [{ start: SIZE - 10, length: 100 * 1024 }]);
    expect(Array.from(large!)).toEqual(Array.from(bytes.subarray(SIZE - 10)));
  });

  it("rejects with the file system's error for a missing file, on both paths", async () => {
    await expect(fs.readRanges(join(dir, "missing"), [{ start: 0, length: 10 }])).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.readRanges(join(dir, "missing"), [{ start: 0, length: 100 * 1024 }])).rejects.toMatchObject({ code: "ENOENT" });
  });
});
