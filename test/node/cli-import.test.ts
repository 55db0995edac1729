// `moomem import` as users run it: a failed import into a new folder leaves nothing behind; --partial.

import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { ensureBuilt } from "./helpers/built-package.ts";
import { runMoomem } from "./helpers/run-cli.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

const TEST_TIMEOUT_MS = 60_000;

let temp = "";
beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("cli-import");
}, 180_000);
afterAll(() => {
  removeDir(temp);
});

/** An export of three entries of bob, as lines. */
async function exportLines(): Promise<string[]> {
  const src = await MemoryStore.open(":memory:");
  for (const text of ["one fact", "two facts", "three facts"]) await src.add("bob", text);
  const lines: string[] = [];
  for await (const line of src.export()) lines.push(line);
  await src.close();
  return lines;
}

describe("moomem import", () => {
  it(
    "a failed import into a new folder leaves no folder behind",
    async () => {
      const lines = await exportLines();
      const file = join(temp, "bad.jsonl");
      writeFileSync(file, [...lines.slice(0, 2), "{not json\n", ...lines.slice(3)].join(""));
      for (const dir of [join(temp, "fresh"), join(temp, "new-parent", "nested", "fresh")]) {
        const result = await runMoomem(["--dir", dir, "import", file]);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/line 3 is not valid JSON/);
        expect(existsSync(dir)).toBe(false);
      }
      expect(existsSync(join(temp, "new-parent"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a cut export is refused and changes nothing in an existing store",
    async () => {
      const dir = join(temp, "existing");
      const mem = await MemoryStore.open(dir);
      await mem.add("alice", "I live in Beijing");
      const before = [await mem.list("alice"), await mem.list("bob")];
      await mem.close();
      const lines = await exportLines();
      const file = join(temp, "cut.jsonl");
      writeFileSync(file, lines.slice(0, 3).join(""));
      const result = await runMoomem(["--dir", dir, "import", file]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/header announces 3 entries but the input holds 2.*--partial/);
      const again = await MemoryStore.open(dir, { readOnly: true });
      expect([await again.list("alice"), await again.list("bob")]).toEqual(before);
      await again.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "--partial imports a cut export",
    async () => {
      const lines = await exportLines();
      const file = join(temp, "cut-partial.jsonl");
      writeFileSync(file, lines.slice(0, 3).join(""));
      const dir = join(temp, "partial");
      const result = await runMoomem(["--dir", dir, "import", "--partial", file]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/imported 2 entries of 1 user/);
      const again = await MemoryStore.open(dir, { readOnly: true });
      expect((await again.list("bob")).map((e) => e.content)).toEqual(["one fact", "two facts"]);
      await again.close();
      expect(readdirSync(temp).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
