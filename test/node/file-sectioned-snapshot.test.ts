// Snapshot formats v6 and v5 on real files (README, "On-disk layout and recovery"; docs/decisions.md, "Snapshot v5", "Snapshot v6"):
// per-user sections (v6: each opened by a block line of vectors and text forms), the open reading only the table, damage anywhere
// refused without ever handing a user another user's entries, the journal checks, and v4 and v5 stores upgraded at their next
// compaction with the same answers.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Batch } from "../../src/persistence/backend.ts";
import type { EntryRecord } from "../../src/types.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { encodeSnapshot } from "../../src/persistence/file/snapshot-format.ts";
import { encodeSectionedSnapshot, readSection, readSectionTable, slotVersion } from "../../src/persistence/file/sectioned-snapshot.ts";
import { MoomemError } from "../../src/errors.ts";
import { MemoryStore } from "../../src/node.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { FaultyFileSystem } from "./helpers/faulty-file-system.ts";
import { EMBEDDER, copyDir, entry, filesOf, makeTempDir, plain, removeDir, stateAfter } from "./helpers/store-files.ts";

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("sectioned");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

function slotPath(dir: string): string {
  return join(dir, "moomem", `slot${readFileSync(join(dir, "moomem", "head"), "utf8").trim()}.jsonl`);
}

/** Where the parts of a v5 or v6 slot are, from its trailer and table (as a reader of the format would find them). */
function layout(bytes: Buffer): {
  headerEnd: number;
  table: number;
  trailer: number;
  sections: { userId: string; at: number; bytes: number; firstLineEnd: number }[];
} {
  const headerEnd = bytes.indexOf(10) + 1;
  const trailer = bytes.lastIndexOf(10, bytes.length - 2) + 1;
  const t = JSON.parse(bytes.subarray(trailer).toString("utf8")) as { table: number; tableBytes: number };
  const sections = bytes
    .subarray(t.table, trailer)
    .toString("utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => {
      const r = JSON.parse(l) as { section: string; at: number; bytes: number };
      return { userId: r.section, at: r.at, bytes: r.bytes, firstLineEnd: bytes.indexOf(10, r.at) + 1 };
    });
  return { headerEnd, table: t.table, trailer, sections };
}

/** Counts the bytes read from snapshot slots. */
class CountingFileSystem extends NodeFileSystem {
  slotBytes = 0;
  override async *readChunks(path: string, from?: number): AsyncGenerator<Uint8Array, void, undefined> {
    for await (const chunk of super.readChunks(path, from)) {
      if (/slot[01]\.jsonl$/.test(path)) this.slotBytes += chunk.length;
      yield chunk;
    }
  }
  override async readRanges(path: string, ranges: readonly { start: number; length: number }[]): Promise<Uint8Array[]> {
    const out = await super.readRanges(path, ranges);
    if (/slot[01]\.jsonl$/.test(path)) for (const r of out) this.slotBytes += r.length;
    return out;
  }
}

async function outcome<T>(run: () => Promise<T>): Promise<{ ok: T } | { code: string; message: string }> {
  try {
    return { ok: await run() };
  } catch (error) {
    if (!(error instanceof MoomemError)) throw error;
    return { code: error.code, message: error.message };
  }
}

const USERS = ["ann", "bob", "cy", "dee", "eve"];

/** Entries of five users with interleaved seqs (each user's seq range overlaps the others'), some padded. */
function history(): Batch[] {
  const first: EntryRecord[] = [];
  for (let seq = 1; seq <= 25; seq++) {
    // Every other text ASCII (v6 stores the tokens of those), the others with the helper's « » (tokenized at load).
    const ascii = seq % 2 === 0 ? { content: `fact ${seq}: I like hiking and coffee, number ${seq}` } : {};
    first.push(entry(`e${seq}`, seq, { userId: USERS[seq % 5]!, ...ascii }, seq % 4 === 0 ? 300 : 0));
  }
  const later: EntryRecord[] = [
    entry("e3", 3, { userId: USERS[3]!, status: "deleted", updatedAt: 1_700_000_000_900, lifecycle: { deletedFrom: "active", deletedAt: 1_700_000_000_900 } }),
    entry("e26", 26, { userId: USERS[1]! }),
  ];
  return [{ entries: first }, { entries: later }];
}

/** A store whose slot (v6, or v5 after {@link toV5}) holds the first batch and whose journal holds the second. */
async function buildStore(): Promise<string> {
  const dir = freshDir();
  const backend = new FileBackend(dir);
  await backend.openCatalog();
  const [first, later] = history();
  await backend.append([first!]);
  await backend.compactStored(EMBEDDER);
  await backend.append([later!]);
  await backend.close();
  return dir;
}

/** The slot in force (v6 or v5): its header and its own entries (not the journal's), user by user, read through its table. */
async function slotContent(
  dir: string,
): Promise<{ gen: number; clock: number | null; embedder: { id: string; dim: number }; users: [string, EntryRecord[]][] }> {
  const path = slotPath(dir);
  const fs = new NodeFileSystem();
  const { version, header } = await slotVersion(fs, path);
  expect([5, 6]).toContain(version);
  const table = await readSectionTable(fs, path, header!);
  const users: [string, EntryRecord[]][] = [];
  for (const section of table.sections) users.push([section.userId, await readSection(fs, path, section)]);
  return { gen: table.gen, clock: table.clock, embedder: table.embedder, users };
}

/** Rewrites the slot in force (v6) as a v5 moomem wrote it (entry lines only, vectors in them), same gen, same entries. */
async function toV5(dir: string): Promise<void> {
  const content = await slotContent(dir);
  const chunks: Uint8Array[] = [];
  for await (const chunk of encodeSectionedSnapshot({ gen: content.gen, clock: content.clock }, content.embedder, content.users, { version: 5 })) {
    chunks.push(chunk);
  }
  writeFileSync(slotPath(dir), Buffer.concat(chunks));
  expect(readFileSync(slotPath(dir), "utf8")).toMatch(/^\{"v":5,/);
}

/** Rewrites the slot in force as a v4 moomem wrote it (one line per entry in seq order), same gen, same entries. */
async function toV4(dir: string): Promise<void> {
  const path = slotPath(dir);
  const content = await slotContent(dir);
  const header = { gen: content.gen, clock: content.clock, embedder: content.embedder };
  const entries = content.users.flatMap(([, e]) => e);
  entries.sort((a, b) => a.seq - b.seq);
  writeFileSync(
    path,
    Buffer.concat([...encodeSnapshot({ gen: header.gen, clock: header.clock }, { embedder: header.embedder, count: entries.length, entries })]),
  );
}

describe("snapshot v6 layout and open", () => {
  it("writes one contiguous section per user (its block line, then its entries in seq order), then one table record per user and a trailer", async () => {
    const dir = await buildStore();
    const lines = readFileSync(slotPath(dir), "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(JSON.parse(lines[0]!)).toMatchObject({ v: 6, gen: 1, embedder: EMBEDDER });
    const sectionLines = lines.slice(1).filter((l) => l.startsWith('{"id":') || l.startsWith('{"blocks":'));
    // Each section opens with its block line, naming the user and counting the entries after it.
    for (let i = 0; i < sectionLines.length;) {
      const block = JSON.parse(sectionLines[i]!) as { blocks: string; n: number; terms: string[]; dedup: unknown[] };
      expect(block.n).toBe(5);
      expect(block.dedup).toHaveLength(5);
      // The helper's texts hold « »: not ASCII, so their forms are not stored (1) and a load tokenizes them; the ASCII ones' are.
      expect(block.dedup).toContain(1);
      expect(block.dedup).toContain(0);
      expect(block.terms).toContain("coffee");
      const own = sectionLines.slice(i + 1, i + 1 + block.n).map((l) => JSON.parse(l) as { user_id: string; embedding: unknown });
      expect(own.map((e) => e.user_id)).toEqual(Array(5).fill(block.blocks));
      for (const e of own) expect(e.embedding).toBe(EMBEDDER.dim);
      i += 1 + block.n;
    }
    const entryLines = sectionLines.filter((l) => l.startsWith('{"id":'));
    const users = entryLines.map((l) => (JSON.parse(l) as { user_id: string }).user_id);
    // Contiguous and in user id order.
    expect(users).toEqual([...users].sort());
    for (const u of USERS) {
      const seqs = entryLines.filter((_, i) => users[i] === u).map((l) => (JSON.parse(l) as { seq: number }).seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs).toHaveLength(5);
    }
    const table = lines.slice(1 + sectionLines.length, -1);
    expect(table.map((l) => (JSON.parse(l) as { section: string }).section)).toEqual(USERS);
    expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({ end: 6, count: 25, users: 5 });
  });

  it("opens by reading the header, trailer and table only: a damaged section is not seen until its user loads", async () => {
    const dir = await buildStore();
    const bytes = readFileSync(slotPath(dir));
    const parts = layout(bytes);
    const fs = new CountingFileSystem();
    const backend = new FileBackend(dir, { fs });
    const catalog = await backend.openCatalog();
    expect(catalog.formatVersion).toBe(6);
    expect(catalog.users.map((u) => u.userId).sort()).toEqual(USERS);
    // The header read (at most 4 KiB), the trailer (at most 200 bytes), the table, and the sections of the
    // two users the journal writes to (dee: a new version of e3; bob: e26, new). Not the others', though
    // their seq ranges hold 3 (cy: 2..22): the table's seq lists say they do not hold it.
    const journalUsers = parts.sections.filter((s) => ["bob", "dee"].includes(s.userId)).reduce((n, s) => n + s.bytes, 0);
    expect(parts.sections.filter((s) => !["bob", "dee"].includes(s.userId)).reduce((n, s) => n + s.bytes, 0)).toBeGreaterThan(1000);
    expect(fs.slotBytes).toBeLessThanOrEqual(Math.min(4096, bytes.length) + 200 + (parts.trailer - parts.table) + journalUsers);
    await backend.close();

    // Damage in ann's section (the journal does not write to her): the open is fine, ann's load is refused, the others load.
    const ann = parts.sections.find((s) => s.userId === "ann")!;
    const damaged = Buffer.from(bytes);
    damaged[ann.at + 20] = damaged[ann.at + 20]! ^ 0x01;
    writeFileSync(slotPath(dir), damaged);
    const next = new FileBackend(dir);
    await next.openCatalog();
    const refused = await outcome(() => next.loadUser("ann"));
    expect(refused).toMatchObject({ code: "STORE_CORRUPTED" });
    expect((refused as { message: string }).message).toMatch(/slot0\.jsonl line \d+: .*user ann's section/);
    const expected = stateAfter(history()).map(plain);
    expect((await next.loadUser("cy")).map(plain)).toEqual(expected.filter((e) => e["userId"] === "cy"));
    await next.close();
    // A full read (read-only open) reads every section, and refuses.
    expect(await outcome(() => new FileBackend(dir, { readOnly: true }).load())).toMatchObject({ code: "STORE_CORRUPTED" });
  });
  it("never drops a damaged section at compaction: the store's own compaction refuses and the damaged bytes stay for repair", async () => {
    const dir = await buildStore();
    const bytes = readFileSync(slotPath(dir));
    const ann = layout(bytes).sections.find((s) => s.userId === "ann")!;
    const damaged = Buffer.from(bytes);
    damaged[ann.at + 20] = damaged[ann.at + 20]! ^ 0x01;
    writeFileSync(slotPath(dir), damaged);
    const annBytes = Buffer.from(damaged.subarray(ann.at, ann.at + ann.bytes));

    // A writer that never touches ann: writes for bob, then compacts from its files (what close does).
    const backend = new FileBackend(dir);
    await backend.openCatalog();
    await backend.append([{ entries: [entry("e27", 27, { userId: "bob" })] }]);
    expect(await outcome(() => backend.compactStored(EMBEDDER))).toMatchObject({ code: "STORE_CORRUPTED" });
    await backend.close();

    // ann's damaged bytes are still in the slot head names (nothing rewrote the store without her), and bob's write is kept.
    const after = readFileSync(slotPath(dir));
    expect(after.indexOf(annBytes)).toBeGreaterThanOrEqual(0);
    const reopened = new FileBackend(dir);
    await reopened.openCatalog();
    expect((await reopened.loadUser("bob")).map((e) => e.id)).toContain("e27");
    expect(await outcome(() => reopened.loadUser("ann"))).toMatchObject({ code: "STORE_CORRUPTED" });
    await reopened.close();
  });
  it("loads sections holding multi-byte text (each line's end found in the decoded text) exactly", async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await backend.openCatalog();
    const written = [1, 2, 3, 4, 5, 6].map((seq) => entry(`m${seq}`, seq, { userId: seq % 2 === 0 ? "ann" : "bob", content: `我对花生过敏 ${seq} Grüße 🎻` }));
    await backend.append([{ entries: written }]);
    await backend.compactStored(EMBEDDER);
    await backend.close();
    const next = new FileBackend(dir);
    await next.openCatalog();
    for (const userId of ["ann", "bob"]) expect((await next.loadUser(userId)).map(plain)).toEqual(written.filter((e) => e.userId === userId).map(plain));
    await next.close();
  });
});

// A loop rather than describe.each: the suite also runs under Deno through a small vitest shim without it.
for (const version of [6, 5] as const)
  describe(`snapshot v${version} damage`, () => {
    // Bounded by runs: each run flips one byte somewhere in a copy of the store.
    it("a flipped byte anywhere (header, sections, v6 block lines, table, trailer) is STORE_CORRUPTED or the exact answer, never another user's entries", async () => {
      const base = await buildStore();
      if (version === 5) await toV5(base);
      const bytes = readFileSync(slotPath(base));
      const parts = layout(bytes);
      const expected = stateAfter(history()).map(plain);
      const regions: [string, number, number][] = [
        ["header", 0, parts.headerEnd],
        ["sections", parts.headerEnd, parts.table],
        ["table", parts.table, parts.trailer],
        ["trailer", parts.trailer, bytes.length],
      ];
      // v6: the block lines (binary vectors and token counts in base64, term lists, dedup forms) get flips of their own.
      if (version === 6) for (const section of parts.sections) regions.push(["sections", section.at, section.firstLineEnd]);
      // v5 keeps the seed it always had; v6 gets its own.
      const random = seededRandom(version === 5 ? 1705 : 1711);
      const seen = new Set<string>();
      const runs = version === 6 ? 200 : 120;
      for (let run = 0; run < runs; run++) {
        const [region, from, to] = regions[run % regions.length]!;
        const at = from + Math.floor(random() * (to - from));
        const flip = 1 + Math.floor(random() * 255);
        const label = `run ${run}: ${region} byte ${at} ^ ${flip}`;
        const dir = freshDir();
        copyDir(base, dir);
        const damaged = Buffer.from(bytes);
        damaged[at] = damaged[at]! ^ flip;
        writeFileSync(slotPath(dir), damaged);

        const backend = new FileBackend(dir);
        const opened = await outcome(() => backend.openCatalog());
        if (!("ok" in opened)) {
          expect(opened.code, label).toBe("STORE_CORRUPTED");
          seen.add(`${region}: refused at open`);
        } else {
          // Only a section's damage may pass the open, and only for a user the journal does not write to.
          expect(region, label).toBe("sections");
          const owner = parts.sections.find((s) => at >= s.at && at < s.at + s.bytes)!;
          for (const userId of USERS) {
            const got = await outcome(() => backend.loadUser(userId));
            if ("ok" in got) {
              expect(userId, label).not.toBe(owner.userId);
              expect(got.ok.map(plain), label).toEqual(expected.filter((e) => e["userId"] === userId));
            } else {
              expect(got.code, label).toBe("STORE_CORRUPTED");
              expect(userId, label).toBe(owner.userId);
            }
          }
          const scanned = await outcome(async () => {
            const out: EntryRecord[] = [];
            for await (const e of backend.scan()) out.push(e);
            return out;
          });
          expect(scanned, label).toMatchObject({ code: "STORE_CORRUPTED" });
          seen.add(`${region}: refused when ${owner.userId} loads`);
        }
        await backend.close();
        // The full read (read-only open, pickSlot) refuses every damage.
        expect(await outcome(() => new FileBackend(dir, { readOnly: true }).load()), label).toMatchObject({ code: "STORE_CORRUPTED" });
        removeDir(dir);
      }
      expect([...seen].sort()).toEqual(expect.arrayContaining(["header: refused at open", "table: refused at open", "trailer: refused at open"]));
      expect([...seen].some((s) => s.startsWith("sections: refused when"))).toBe(true);
    });

    it("a changed digit of the trailer's whole-file CRC is STORE_CORRUPTED at open, as the full read finds it", async () => {
      const base = await buildStore();
      if (version === 5) await toV5(base);
      const bytes = readFileSync(slotPath(base));
      const trailer = bytes.subarray(layout(bytes).trailer).toString("utf8");
      const field = trailer.lastIndexOf('"crc":') + '"crc":'.length;
      const digits = trailer.indexOf("}", field) - field;
      expect(digits).toBeGreaterThan(0);
      for (let d = 0; d < digits; d++) {
        const at = layout(bytes).trailer + field + d;
        const was = bytes[at]! - 48;
        // Another digit, and not a leading zero (the trailer's grammar would refuse that as it refuses any non-number).
        const other = (was + 1 + (d === 0 && was === 8 ? 1 : 0)) % 10 || (d === 0 ? 1 : 0);
        const label = `crc digit ${d}: ${was} -> ${other}`;
        const dir = freshDir();
        copyDir(base, dir);
        const damaged = Buffer.from(bytes);
        damaged[at] = 48 + other;
        writeFileSync(slotPath(dir), damaged);
        const backend = new FileBackend(dir);
        const opened = await outcome(() => backend.openCatalog());
        expect(opened, label).toMatchObject({ code: "STORE_CORRUPTED" });
        expect((opened as { message: string }).message, label).toMatch(/CRC/);
        await backend.close();
        expect(await outcome(() => new FileBackend(dir, { readOnly: true }).load()), label).toMatchObject({ code: "STORE_CORRUPTED" });
        removeDir(dir);
      }
    });

    it("with head unreadable, a slot whose table is damaged is not a candidate: the other complete slot with its journal is used", async () => {
      const dir = await buildStore();
      if (version === 5) await toV5(dir);
      const m = join(dir, "moomem");
      const older = { slot: readFileSync(join(m, "slot0.jsonl")), journal: readFileSync(join(m, "journal.1.jsonl")) };
      const backend = new FileBackend(dir);
      await backend.openCatalog();
      await backend.append([{ entries: [entry("e27", 27, { userId: "ann" })] }]);
      await backend.compactStored(EMBEDDER);
      await backend.close();
      // A crash after the commit left the older slot and its journal behind (they are deleted right after, normally).
      writeFileSync(join(m, "slot0.jsonl"), older.slot);
      writeFileSync(join(m, "journal.1.jsonl"), older.journal);
      const newer = readFileSync(join(m, "slot1.jsonl"));
      const parts = layout(newer);
      newer[parts.table + 5] = newer[parts.table + 5]! ^ 0x02;
      writeFileSync(join(m, "slot1.jsonl"), newer);
      // head names the damaged slot: refused, nothing guessed.
      expect(await outcome(() => new FileBackend(dir).openCatalog())).toMatchObject({
        code: "STORE_CORRUPTED",
        message: expect.stringMatching(/slot1\.jsonl: the table's CRC/),
      });
      // head unreadable: the damaged slot is not a candidate; the older one (with its journal) is the truth.
      writeFileSync(join(m, "head"), "\u0000");
      const fallback = new FileBackend(dir);
      const catalog = await fallback.openCatalog();
      expect(catalog.users.reduce((n, u) => n + u.total, 0)).toBe(26);
      expect((await fallback.loadUser("ann")).map(plain)).toEqual(
        stateAfter(history())
          .map(plain)
          .filter((e) => e["userId"] === "ann"),
      );
      await fallback.close();
    });
  });

describe("snapshot v6 and the journal", () => {
  /** ann holds seqs 1 and 3, bob 2 and 4, in the snapshot. */
  async function base(): Promise<string> {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await backend.openCatalog();
    await backend.append([
      { entries: [entry("a1", 1, { userId: "ann" }), entry("b2", 2, { userId: "bob" }), entry("a3", 3, { userId: "ann" }), entry("b4", 4, { userId: "bob" })] },
    ]);
    await backend.compactStored(EMBEDDER);
    await backend.close();
    return dir;
  }

  async function withJournal(records: EntryRecord[]): Promise<string> {
    const dir = await base();
    const backend = new FileBackend(dir);
    await backend.openCatalog();
    // append() trusts this process's store; the next open reads the journal as it reads any.
    await backend.append([{ entries: records }]);
    await backend.close();
    return dir;
  }

  it("refuses at open a journal entry taking a seq another user's snapshot entry holds, whoever loads first", async () => {
    for (const hostile of [entry("x3", 3, { userId: "bob" }), entry("x2", 2, { userId: "carol" }), entry("x1", 1, { userId: "ann" })]) {
      const dir = await withJournal([hostile]);
      const opened = await outcome(() => new FileBackend(dir).openCatalog());
      expect(opened, hostile.id).toMatchObject({ code: "STORE_CORRUPTED", message: expect.stringMatching(new RegExp(`both hold seq ${hostile.seq}`)) });
    }
  });

  it("a journal version of a snapshot entry replaces it (by id, for its user only), and the catalog counts it once", async () => {
    const updated = entry("a3", 3, { userId: "ann", status: "deleted", updatedAt: 1_700_000_001_000, lifecycle: { deletedFrom: "active", deletedAt: 1 } });
    const dir = await withJournal([updated, entry("b9", 9, { userId: "bob" })]);
    const backend = new FileBackend(dir);
    const catalog = await backend.openCatalog();
    const ann = catalog.users.find((u) => u.userId === "ann")!;
    expect(ann).toMatchObject({ total: 2, active: 1, deleted: 1 });
    expect(catalog.users.find((u) => u.userId === "bob")).toMatchObject({ total: 3, active: 3 });
    expect((await backend.loadUser("ann")).map((e) => [e.id, e.status])).toEqual([
      ["a1", "active"],
      ["a3", "deleted"],
    ]);
    expect((await backend.loadUser("bob")).map((e) => e.id)).toEqual(["b2", "b4", "b9"]);
    const all: string[] = [];
    for await (const e of backend.scan()) all.push(e.id);
    expect(all).toEqual(["a1", "b2", "a3", "b4", "b9"]);
    await backend.close();
  });
});

for (const version of [4, 5] as const)
  describe(`a v${version} store`, () => {
    const toOld = version === 4 ? toV4 : toV5;
    async function answers(mem: MemoryStore): Promise<unknown> {
      const users = await mem.users();
      const out: Record<string, unknown> = { users };
      for (const u of users) {
        out[`list ${u.userId}`] = await mem.list(u.userId, { status: "all" } as never);
        out[`recall ${u.userId}`] = (await mem.recall(u.userId, "where do I live and what do I like")).map((h) => [h.id, h.content, h.score]);
      }
      const lines: string[] = [];
      for await (const line of mem.export()) lines.push(line);
      out["export"] = lines.slice(1);
      const { formatVersion: _v, bytesOnDisk: _b, loadedUsers: _l, loadedBytes: _lb, ...stats } = (await mem.stats()) as unknown as Record<string, unknown>;
      out["stats"] = stats;
      return out;
    }

    it("is read as it is, written to (journal), then compacted to v6 with identical answers", async () => {
      const dir = freshDir();
      const first = await MemoryStore.open(dir);
      for (let u = 0; u < 6; u++) {
        await first.add(`user-${u}`, `I live in city ${u}`);
        await first.add(`user-${u}`, `I like tea number ${u}`);
      }
      await first.add("user-2", "I live in city 20");
      await first.forget("user-4", { all: true });
      await first.close();
      await toOld(dir);
      expect(readFileSync(slotPath(dir), "utf8")).toMatch(new RegExp(`^\\{"v":${version},`));

      const old = await MemoryStore.open(dir, { maxLoadedUsers: 2 });
      expect((await old.stats()).formatVersion).toBe(version);
      await old.add("user-1", "I like coffee now");
      const before = await answers(old);
      await old.close(); // compacts: from the old slot's lines and the journal, into v6
      expect(readFileSync(slotPath(dir), "utf8")).toMatch(/^\{"v":6,/);

      const v6 = await MemoryStore.open(dir, { maxLoadedUsers: 2 });
      expect((await v6.stats()).formatVersion).toBe(6);
      expect(await answers(v6)).toEqual(before);
      await v6.close();
      const readOnly = await MemoryStore.open(dir, { readOnly: true });
      expect(await answers(readOnly)).toEqual(before);
      await readOnly.close();
    });

    it("compacted from its files to v6 with a crash at every step reopens to the same state", async () => {
      const base = await buildStore();
      await toOld(base);
      const expected = stateAfter(history()).map(plain);
      const probeDir = freshDir();
      copyDir(base, probeDir);
      const probe = new FaultyFileSystem(new NodeFileSystem());
      const backend = new FileBackend(probeDir, { fs: probe });
      await backend.openCatalog();
      const openSteps = probe.steps;
      await backend.compactStored(EMBEDDER);
      const total = probe.steps;
      await backend.close();
      expect(readFileSync(slotPath(probeDir), "utf8")).toMatch(/^\{"v":6,/);
      for (let at = openSteps + 1; at <= total; at++) {
        for (const when of probe.log[at - 1]!.startsWith("write ") ? (["before", "after", "torn"] as const) : (["before", "after"] as const)) {
          const label = `crash ${when} step ${at} (${probe.log[at - 1]})`;
          const dir = freshDir();
          copyDir(base, dir);
          const fs = new FaultyFileSystem(new NodeFileSystem(), { kind: "crash", at, when });
          const crashing = new FileBackend(dir, { fs });
          await crashing.openCatalog();
          const result = await crashing.compactStored(EMBEDDER).then(
            () => "resolved",
            (error: unknown) => error,
          );
          expect(fs.crashed, label).toBe(true);
          if (result !== "resolved") expect(result, label).toMatchObject({ code: "IO_FAILURE" });
          await crashing.close();
          const reopened = new FileBackend(dir);
          expect((await reopened.load()).entries.map(plain), label).toEqual(expected);
          await reopened.close();
          const catalogued = new FileBackend(dir);
          await catalogued.openCatalog();
          for (const userId of USERS) expect((await catalogued.loadUser(userId)).map(plain), label).toEqual(expected.filter((e) => e["userId"] === userId));
          await catalogued.compactStored(EMBEDDER);
          await catalogued.close();
          expect(Object.keys(filesOf(dir)).filter((f) => f.includes("slot")).length, label).toBe(1);
          expect(readFileSync(slotPath(dir), "utf8"), label).toMatch(/^\{"v":6,/);
          removeDir(dir);
        }
      }
    });
  });
