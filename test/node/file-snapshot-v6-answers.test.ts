// Snapshot v6 answers as v5 does and as the store that made the entries did (docs/decisions.md, "Snapshot v6"): the stored
// vectors, token counts and dedup forms are exactly what indexing the entries again would give.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { EntryRecord } from "../../src/types.ts";
import { MemoryStore } from "../../src/node.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { encodeSectionedSnapshot, readSection, readSectionTable, slotVersion } from "../../src/persistence/file/sectioned-snapshot.ts";
import { textFormsOf } from "../../src/persistence/text-forms.ts";
import { isAscii } from "../../src/persistence/file/section-blocks.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("v6-answers");
});
afterAll(() => {
  removeDir(root);
});

function slotPath(dir: string): string {
  return join(dir, "moomem", `slot${readFileSync(join(dir, "moomem", "head"), "utf8").trim()}.jsonl`);
}

/** Rewrites the slot in force (v6) as v5 (entry lines with their vectors, no block lines): same gen, same entries. */
async function toV5(dir: string): Promise<void> {
  const path = slotPath(dir);
  const fs = new NodeFileSystem();
  const { version, header } = await slotVersion(fs, path);
  expect(version).toBe(6);
  const table = await readSectionTable(fs, path, header!);
  const users: [string, EntryRecord[]][] = [];
  for (const section of table.sections) users.push([section.userId, await readSection(fs, path, section)]);
  const chunks: Uint8Array[] = [];
  for await (const chunk of encodeSectionedSnapshot({ gen: table.gen, clock: table.clock }, table.embedder, users, { version: 5 })) chunks.push(chunk);
  writeFileSync(path, Buffer.concat(chunks));
}

const PLACES = ["Berlin", "Shanghai", "上海", "Paris", "東京"];
const LIKES = ["coffee", "green tea", "hiking", "the violin", "花生", "painting", "running"];

/** A user's memories: facts, repeats, changed facts (supersede), mixed scripts and punctuation. */
function sentences(random: () => number, n: number): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.25) out.push(`I live in ${pick(PLACES)}${pick(["", ".", "!", " ", "。"])}`);
    else if (r < 0.5) out.push(`I like ${pick(LIKES)} ${pick(["", "a lot", "on Tuesdays", "with my daughter's friends"])}`);
    else if (r < 0.6) out.push(`我喜欢${pick(LIKES)}，也住在${pick(PLACES)}`);
    else if (r < 0.7 && out.length > 0) out.push(pick(out).toUpperCase());
    else out.push(`Note ${i}: ${pick(LIKES)} and ${pick(LIKES)}   near ${pick(PLACES)}'s   station`);
  }
  return out;
}

async function answers(mem: MemoryStore, users: readonly string[]): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const u of users) {
    for (const query of ["where do I live", "coffee hiking Berlin", "花生 上海", "violin painting"]) {
      for (const mode of ["hybrid", "vector", "keyword"] as const) {
        out[`recall ${u} ${query} ${mode}`] = (await mem.recall(u, query, { topK: 6, mode })).map((h) => [h.id, h.content, h.score]);
      }
    }
    const all = await mem.list(u, { status: "all" });
    out[`list ${u}`] = all;
    for (const e of all) out[`history ${u} ${e.id}`] = await mem.history(u, e.id);
  }
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  out["export"] = lines.slice(1);
  return out;
}

describe("a user loaded from snapshot v6", () => {
  // Bounded by runs: three seeded stores of four users each.
  it("answers recall (every mode), list, history and export exactly as from v5 and as the store that made the entries", async () => {
    const statuses: string[] = [];
    let stored = 0;
    let tokenizedAtLoad = 0;
    for (const seed of [11, 12, 13]) {
      const random = seededRandom(seed);
      const dir = join(root, `s${++counter}`);
      const users = ["ann", "bob", "cy", "dee"];
      const made = await MemoryStore.open(dir);
      for (const u of users) {
        for (const text of sentences(random, 6 + Math.floor(random() * 10))) await made.add(u, text);
      }
      const some = (await made.list("bob"))[0];
      if (some !== undefined) await made.forget("bob", { id: some.id } as never);
      const before = await answers(made, users);
      await made.close();
      expect(readFileSync(slotPath(dir), "utf8"), `seed ${seed}`).toMatch(/^\{"v":6,/);
      // The v6 sections carry the forms the loads below index from (not a file whose forms this moomem would ignore).
      const fs = new NodeFileSystem();
      const table = await readSectionTable(fs, slotPath(dir), (await slotVersion(fs, slotPath(dir))).header!);
      for (const section of table.sections) {
        for (const e of await readSection(fs, slotPath(dir), section)) {
          const live = e.status === "active" || e.status === "unstructured";
          expect(textFormsOf(e) !== undefined, e.id).toBe(live && isAscii(e.content));
          stored += textFormsOf(e) === undefined ? 0 : 1;
          tokenizedAtLoad += live && textFormsOf(e) === undefined ? 1 : 0;
        }
      }
      statuses.push(...((before as Record<string, { status: string }[]>)["list bob"] ?? []).map((e) => e.status));

      const v6 = await MemoryStore.open(dir, { maxLoadedUsers: 1 });
      expect(await answers(v6, users), `seed ${seed}: v6`).toEqual(before);
      await v6.close();

      await toV5(dir);
      const v5 = await MemoryStore.open(dir, { readOnly: true });
      expect((await v5.stats()).formatVersion).toBe(5);
      expect(await answers(v5, users), `seed ${seed}: v5`).toEqual(before);
      await v5.close();
    }
    // The stores held changed facts and forgotten ones, not only live entries.
    expect(statuses).toEqual(expect.arrayContaining(["active", "superseded", "deleted"]));
    // Both paths were taken: entries indexed from stored forms (ASCII) and entries tokenized at load (CJK, accents).
    expect(stored).toBeGreaterThan(10);
    expect(tokenizedAtLoad).toBeGreaterThan(3);
  });
});

describe("the first adds to a user loaded from snapshot v6", () => {
  // A user read from a section is built with its vectors and dedup forms left where they are read (state/entry-state.ts):
  // the first add must still see every duplicate and every fact it changes.
  it("find duplicates and changed facts as the store that made the entries does (before any recall, and after one)", async () => {
    for (const recallFirst of [false, true]) {
      const random = seededRandom(recallFirst ? 31 : 32);
      const dir = join(root, `s${++counter}`);
      const made = await MemoryStore.open(dir);
      const first = sentences(random, 40);
      for (const text of first) await made.add("ann", text);
      const next = [...first.slice(0, 8), ...sentences(random, 12), "I live in Paris", "I moved to Oslo", "I like coffee a lot"];
      const outcomes = async (mem: MemoryStore): Promise<unknown[]> => {
        if (recallFirst) await mem.recall("ann", "where do I live");
        const out: unknown[] = [];
        for (const text of next) out.push((await mem.add("ann", text)).facts.map((f) => [f.action, f.content, f.replaced?.length ?? 0]));
        out.push((await mem.list("ann", { status: "all" })).map((e) => [e.content, e.status]));
        return out;
      };
      await made.close();
      // The same adds on the store as written (reopened) and on a copy of its entries in memory, loaded as they were.
      const reopened = await MemoryStore.open(dir);
      const expected = await MemoryStore.open(":memory:");
      const lines: string[] = [];
      for await (const line of reopened.export()) lines.push(line);
      await expected.import(lines);
      const got = await outcomes(reopened);
      const want = await outcomes(expected);
      expect(got).toEqual(want);
      // Duplicates were found (the repeats of the first texts), and at least one fact replaced another.
      expect(JSON.stringify(got)).toContain('"duplicate"');
      await reopened.close();
      await expected.close();
    }
  });
});
