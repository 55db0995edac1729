// compactStored (a compaction from the store's own snapshot + journal, for stores whose users are loaded when asked)
// under a crash at every step: the store reopens to the same state, by load() and by openCatalog().

import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Batch } from "../../src/persistence/backend.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { FaultyFileSystem } from "./helpers/faulty-file-system.ts";
import { EMBEDDER, copyDir, entry, filesOf, makeTempDir, plain, removeDir, stateAfter } from "./helpers/store-files.ts";

const realFs = new NodeFileSystem();
let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("compact-stored");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** slot0 (gen 1) with e1, e2 (two users) and journal.1 with e3 and a new version of e1 (replacing its snapshot line). */
const BATCHES: Batch[] = [
  { entries: [entry("e1", 1), entry("e2", 2, { userId: "user-2" })] },
  { entries: [entry("e3", 3, { userId: "user-2" }), entry("e1", 1, { status: "deleted", updatedAt: 1_700_000_000_500 })] },
];

async function buildBase(): Promise<string> {
  const dir = freshDir();
  const backend = new FileBackend(dir);
  await backend.load();
  await backend.append([BATCHES[0]!]);
  const state = stateAfter(BATCHES.slice(0, 1));
  await backend.compact({ embedder: EMBEDDER, count: state.length, entries: state });
  await backend.append([BATCHES[1]!]);
  await backend.close();
  return dir;
}

function crashModes(step: string): ("before" | "after" | "torn")[] {
  return step.startsWith("write ") ? ["before", "after", "torn"] : ["before", "after"];
}

describe("FileBackend.compactStored crashing at every step", () => {
  it("reopens to the same state, by load() and by openCatalog(), and keeps working", async () => {
    const base = await buildBase();
    const expected = stateAfter(BATCHES).map(plain);
    const probeDir = freshDir();
    copyDir(base, probeDir);
    const probe = new FaultyFileSystem(realFs);
    const backend = new FileBackend(probeDir, { fs: probe });
    const catalog = await backend.openCatalog();
    expect(catalog.users.map((u) => [u.userId, u.total, u.active, u.deleted]).sort()).toEqual([
      ["user-1", 1, 0, 1],
      ["user-2", 2, 2, 0],
    ]);
    const openSteps = probe.steps;
    await backend.compactStored(EMBEDDER);
    const total = probe.steps;
    await backend.close();
    expect(total - openSteps).toBeGreaterThan(15);

    for (let at = openSteps + 1; at <= total; at++) {
      for (const when of crashModes(probe.log[at - 1]!)) {
        const label = `crash ${when} step ${at} (${probe.log[at - 1]})`;
        const dir = freshDir();
        copyDir(base, dir);
        const fs = new FaultyFileSystem(realFs, { kind: "crash", at, when });
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
        const loaded = await reopened.load();
        expect(loaded.entries.map(plain), label).toEqual(expected);
        expect(loaded.truncatedRecovered, label).toBe(0);
        await reopened.close();

        // Through the catalog: each user's entries, then a write and a compaction from the files again.
        const catalogued = new FileBackend(dir);
        await catalogued.openCatalog();
        expect((await catalogued.loadUser("user-1")).map(plain), label).toEqual(expected.filter((e) => e["userId"] === "user-1"));
        expect((await catalogued.loadUser("user-2")).map(plain), label).toEqual(expected.filter((e) => e["userId"] === "user-2"));
        await catalogued.append([{ entries: [entry("after", 30)] }]);
        await catalogued.compactStored(EMBEDDER);
        await catalogued.close();
        const files = Object.keys(filesOf(dir));
        expect(
          files.filter((f) => f.endsWith(".tmp") || f.endsWith("LOCK")),
          label,
        ).toEqual([]);
        expect(files.filter((f) => f.includes("slot")).length, label).toBe(1);
        const last = new FileBackend(dir);
        expect(
          (await last.load()).entries.map((e) => e.id),
          label,
        ).toEqual(["e1", "e2", "e3", "after"]);
        await last.close();
        removeDir(dir);
      }
    }
  });
});
