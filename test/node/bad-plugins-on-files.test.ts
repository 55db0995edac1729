// On real files: a clock that answers nonsense, or a date out of range, can no longer make a store unopenable.

import { describe, it, expect, afterEach } from "vitest";
import { mkdtempSync, rmSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, FixedClock, type Clock } from "../../src/node.ts";
import { rejectsWith } from "../helpers/scripted.ts";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "moomem-bad-plugins-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 1);

/** The bytes of the store's data files (snapshots, journals, head; not the writer's lock), to show a rejected write appended nothing. */
function folderBytes(dir: string): string {
  const store = join(dir, "moomem");
  return readdirSync(store)
    .filter((name) => name.endsWith(".jsonl") || name === "head")
    .sort()
    .map((name) => `${name}:${readFileSync(join(store, name)).toString("base64")}`)
    .join("\n");
}

describe("bad clock values and dates on a file store", () => {
  it("rejects writes while the clock answers NaN, Infinity, a string or a Date; nothing reaches the files; the store reopens", async () => {
    const dir = tempDir();
    let answer: unknown = T0;
    const clock: Clock = { now: () => answer as number };
    const mem = await MemoryStore.open(dir, { clock });
    await mem.add("u", "I'm allergic to peanuts");
    const before = folderBytes(dir);
    expect(before).toMatch(/journal\.\d+\.jsonl:./);
    for (const bad of [Number.NaN, Infinity, "1767225600000", new Date(T0), 1e300]) {
      answer = bad;
      await rejectsWith(mem.add("u", "I live in Lisbon"), "INVALID_ARGUMENT");
      await rejectsWith(mem.forget("u", { all: true }), "INVALID_ARGUMENT");
    }
    expect(folderBytes(dir)).toBe(before);
    answer = T0;
    await mem.add("u", "I live in Lisbon", { observedAt: T0 - 1000 });
    await rejectsWith(mem.add("u", "from the far future", { observedAt: 1e300 }), "INVALID_ARGUMENT");
    await mem.close();
    const again = await MemoryStore.open(dir, { clock: new FixedClock(T0) });
    expect((await again.list("u")).map((e) => e.content)).toEqual(["I'm allergic to peanuts", "I live in Lisbon"]);
    await again.close();
  });
});
