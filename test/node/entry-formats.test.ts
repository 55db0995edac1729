// Entry format 4 (the store's bookkeeping in `lifecycle`) beside what moomem wrote before it: a store folder
// in file format 3 and an export in entry format 2, both written by moomem at c82b904 (test/fixtures/format-v3/README.md).

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "../../src/node.ts";
import type { MemoryEntry } from "../../src/types.ts";
import { copyDir, makeTempDir, removeDir } from "./helpers/store-files.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const OLD_EXPORT = readFileSync(join(FIXTURES, "export-entry-format-2.jsonl"), "utf8");

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("entry-formats");
});
afterAll(() => {
  removeDir(root);
});

const lines = (text: string): string[] => text.split(/(?<=\n)/).filter((l) => l.trim() !== "");
const objects = (text: string): Array<Record<string, unknown>> => lines(text).map((l) => JSON.parse(l) as Record<string, unknown>);

async function collect(iterable: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const line of iterable) out += line;
  return out;
}

/** The fields a caller sees, by content (ids are random per fixture). */
function byContent(entries: readonly MemoryEntry[]): Map<string, MemoryEntry> {
  return new Map(entries.map((e) => [`${e.userId}|${e.status}|${e.content}`, e]));
}

/** What 0.1's bookkeeping in the fixtures must become: lifecycle fields, and the caller's metadata alone. */
function expectLifted(entries: Map<string, MemoryEntry>): void {
  const get = (key: string): MemoryEntry => {
    const e = entries.get(key);
    expect(e, key).toBeDefined();
    return e!;
  };
  expect(get("u1|superseded|I live in Beijing")).toMatchObject({
    metadata: { channel: "chat" },
    lifecycle: { extractor: "pattern", sourceSpan: "I live in Beijing" },
  });
  const shenzhen = get("u1|active|I moved to Shenzhen");
  expect(shenzhen.metadata).toEqual({ channel: "chat" });
  expect(shenzhen.lifecycle).toMatchObject({ conflictReason: "fixture reason", judge: "fixture-judge", conflict: [expect.any(String)] });
  expect(get("u1|active|I also love green tea with jasmine").lifecycle!.conflict).toHaveLength(2);
  expect(get("u1|active|I love long walks along the river in the morning before brea").lifecycle).toMatchObject({ truncated: { originalChars: 95 } });
  expect(get("u1|active|I love no-vector pickles").lifecycle!.embeddingDegraded).toMatch(/embedder down/);
  const cello = get("u2|deleted|I play the cello");
  expect(cello.metadata).toEqual({ source: "import", tags: ["music"] });
  expect(cello.lifecycle).toMatchObject({ deletedFrom: "active", deletedAt: expect.any(Number) });
  const tombstone = get("u2|deleted|");
  expect(tombstone.metadata).toEqual({});
  expect(tombstone.lifecycle).toEqual({ purgedAt: expect.any(Number) });
  expect(get("u2|active|I love jazz").lifecycle!.restoredAt).toEqual(expect.any(Number));
  const raw = get("u3|superseded|I love hiking in the Alps");
  expect(raw.metadata).toEqual({});
  expect(raw.lifecycle).toMatchObject({ extractionDegraded: "model down (fixture)", reextractedInto: [expect.any(String)] });
  expect(get("u3|active|I love hiking in the Alps").lifecycle!.reextractedFrom).toBe(raw.id);
  for (const e of entries.values()) {
    for (const key of Object.keys(e.metadata)) expect(["channel", "source", "tags"], `${e.content}: ${key}`).toContain(key);
  }
}

async function allEntries(mem: MemoryStore): Promise<MemoryEntry[]> {
  const out: MemoryEntry[] = [];
  for (const u of await mem.users()) out.push(...(await mem.list(u.userId)));
  return out;
}

describe("a file store written by moomem 0.1's format 3", () => {
  it("opens with its bookkeeping as lifecycle fields, is rewritten in format 4 (entry lines; snapshot v6) at once, and behaves as before", async () => {
    const dir = join(root, `s${++counter}`);
    copyDir(join(FIXTURES, "format-v3"), dir);
    const mem = await MemoryStore.open(dir);
    const entries = byContent(await allEntries(mem));
    expect(entries.size).toBe(14);
    expectLifted(entries);
    expect((await mem.stats()).formatVersion).toBe(6);
    // The journal's lines (the second session) were read too.
    expect(entries.get("u3|deleted|I love baking bread")).toMatchObject({ metadata: { channel: "voice" }, lifecycle: { deletedFrom: "active" } });
    // Its rules work on the lifted fields: a forgotten entry comes back active, a tombstone stays one.
    const cello = entries.get("u2|deleted|I play the cello")!;
    expect(await mem.restore("u2", cello.id)).toMatchObject({ status: "active", metadata: { source: "import", tags: ["music"] } });
    await expect(mem.restore("u2", entries.get("u2|deleted|")!.id)).rejects.toThrow(/purged/);
    await mem.close();
    const head = readFileSync(join(dir, "moomem", "head"), "utf8").trim();
    expect(JSON.parse(readFileSync(join(dir, "moomem", `slot${head}.jsonl`), "utf8").split("\n")[0]!)).toMatchObject({ v: 6 });
    const again = await MemoryStore.open(dir, { readOnly: true });
    expect(byContent(await allEntries(again)).get("u2|active|I play the cello")!.lifecycle).toMatchObject({ restoredAt: expect.any(Number) });
    await again.close();
  });
});

describe("exports between entry formats", () => {
  it("an export of moomem 0.1 (entry format 2) imports with its bookkeeping lifted into lifecycle", async () => {
    const mem = await MemoryStore.open(":memory:");
    expect(await mem.import(lines(OLD_EXPORT))).toMatchObject({ entries: 14, users: 3 });
    expectLifted(byContent(await allEntries(mem)));
    await mem.close();
  });

  it("exports entry format 4 by default, and entry format 2 for an older moomem: the same lines 0.1 wrote", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.import(lines(OLD_EXPORT));
    const current = objects(await collect(mem.export()));
    expect(current[0]).toMatchObject({ entry_format: 4, count: 14 });
    for (const line of current.slice(1)) expect(line).toHaveProperty("lifecycle");
    const legacy = objects(await collect(mem.export({ entryFormat: 2 })));
    const old = objects(OLD_EXPORT);
    expect(legacy[0]).toMatchObject({ entry_format: 2, count: 14 });
    // Entry lines equal the ones 0.1 wrote, field for field (the import numbered the entries in the same order),
    // but for the vector import computed for the entry 0.1 stored without one.
    const vectorless = (o: Record<string, unknown>): Record<string, unknown> =>
      o["content"] === "I love no-vector pickles" ? { ...o, embedding: "(recomputed)" } : o;
    expect(legacy.slice(1).map(vectorless)).toEqual(old.slice(1).map(vectorless));
    // And a format-4 export imports into a store that then holds the same entries.
    const copy = await MemoryStore.open(":memory:");
    await copy.import(lines(await collect(mem.export())));
    expect(await allEntries(copy)).toEqual(await allEntries(mem));
    await Promise.all([mem.close(), copy.close()]);
  });

  it("refuses an entry-format-2 export of an entry whose own metadata uses an old bookkeeping name, before writing a line", async () => {
    const mem = await MemoryStore.open(":memory:");
    await mem.add("u", "I like green tea");
    await mem.add("u", "I play chess", { metadata: { judge: "me" } });
    const iterator = mem.export({ entryFormat: 2 })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow(/"judge".*entry format before 4|entry format before 4.*"judge"/);
    expect(() => mem.export({ entryFormat: 3 as never })).toThrow(/entryFormat must be 4.*or 2/);
    await mem.close();
  });
});
