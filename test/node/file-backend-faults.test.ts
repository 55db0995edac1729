// FileBackend under injected ENOSPC/EIO and crashes at every step of writes, compaction and recovery.

import { readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { Batch } from "../../src/persistence/backend.ts";
import type { SyncMode } from "../../src/types.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { MoomemError } from "../../src/errors.ts";
import { FaultyFileSystem, type FaultPlan } from "./helpers/faulty-file-system.ts";
import { EMBEDDER, copyDir, entry, filesOf, makeTempDir, plain, removeDir, stateAfter } from "./helpers/store-files.ts";

const realFs = new NodeFileSystem();
let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("faults");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** The store every scenario starts from: slot0 (gen 1) with e1, e2 and journal.1 with e3. */
const BASE_BATCHES: Batch[] = [{ entries: [entry("e1", 1)] }, { entries: [entry("e2", 2)] }, { entries: [entry("e3", 3)] }];

async function buildBase(): Promise<string> {
  const dir = freshDir();
  const backend = new FileBackend(dir);
  await backend.load();
  await backend.append([BASE_BATCHES[0]!, BASE_BATCHES[1]!]);
  const state = stateAfter(BASE_BATCHES.slice(0, 2));
  await backend.compact({ embedder: EMBEDDER, count: state.length, entries: state });
  await backend.append([BASE_BATCHES[2]!]);
  await backend.close();
  return dir;
}

type Step = { append: Batch[] } | "compact";

/** Appends (one a group of two, one a large record, one changing an older entry) around two compactions. */
const WORKLOAD: Step[] = [
  { append: [{ entries: [entry("w10", 10)] }] },
  { append: [{ entries: [entry("w11", 11)] }, { entries: [entry("w12", 12), entry("e1", 1, { status: "deleted", updatedAt: 5 })] }] },
  "compact",
  { append: [{ entries: [entry("w13", 13, {}, 3000)] }] },
  { append: [{ entries: [entry("w14", 14)] }] },
];

interface Outcome {
  loaded: boolean;
  /** Batches whose append resolved. */
  acked: Batch[];
  /** The group in flight when the first failure hit (a crash may or may not have kept it). */
  inFlight: Batch[];
  errors: unknown[];
}

async function runWorkload(dir: string, fs: FaultyFileSystem, sync: SyncMode): Promise<Outcome> {
  // A huge interval keeps background syncs out of the step count (they are tested on their own below).
  const backend = new FileBackend(dir, { fs, sync, syncIntervalMs: 3_600_000 });
  const out: Outcome = { loaded: false, acked: [...BASE_BATCHES], inFlight: [], errors: [] };
  try {
    await backend.load();
  } catch (error) {
    out.errors.push(error);
    await backend.close();
    return out;
  }
  out.loaded = true;
  // Accepting the open is when recovery may change files (cut a torn tail, delete leftovers): a step like any write.
  try {
    await backend.accept();
  } catch (error) {
    out.errors.push(error);
  }
  for (const step of WORKLOAD) {
    try {
      if (step === "compact") {
        const state = stateAfter(out.acked);
        await backend.compact({ embedder: EMBEDDER, count: state.length, entries: state });
      } else {
        await backend.append(step.append);
        out.acked.push(...step.append);
      }
    } catch (error) {
      if (out.errors.length === 0 && step !== "compact") out.inFlight = step.append;
      out.errors.push(error);
    }
  }
  try {
    await backend.close();
  } catch (error) {
    out.errors.push(error);
  }
  return out;
}

/** A torn crash only differs from "before" for writes. */
function crashModes(step: string): ("before" | "after" | "torn")[] {
  return step.startsWith("write ") ? ["before", "after", "torn"] : ["before", "after"];
}

async function reopen(dir: string): Promise<Awaited<ReturnType<FileBackend["load"]>>> {
  const backend = new FileBackend(dir);
  const state = await backend.load();
  await backend.close();
  return state;
}

function expectOnlyIoFailures(outcome: Outcome, label: string): void {
  for (const error of outcome.errors) {
    expect(error, label).toBeInstanceOf(MoomemError);
    expect((error as MoomemError).code, `${label}: ${String(error)}`).toBe("IO_FAILURE");
  }
}

async function countSteps(base: string, sync: SyncMode): Promise<{ total: number; log: string[] }> {
  const dir = freshDir();
  copyDir(base, dir);
  const fs = new FaultyFileSystem(realFs);
  const outcome = await runWorkload(dir, fs, sync);
  expect(outcome.errors).toEqual([]);
  return { total: fs.steps, log: fs.log };
}

describe("FileBackend with injected I/O failures", () => {
  let base: string;
  beforeAll(async () => {
    base = await buildBase();
  });

  // "interval" behaves like "none" here (its timer is kept out of the step count); its own tests are below.
  // The backend treats every errno alike, so the code alternates; a failing write first writes half its data.
  for (const sync of ["always", "none"] as const) {
    it(`sync ${sync}: ENOSPC/EIO at every step never shows a failed write nor loses an acknowledged one`, async () => {
      const { total, log } = await countSteps(base, sync);
      expect(total).toBeGreaterThan(40);
      for (let at = 1; at <= total; at++) {
        const code = at % 2 === 0 ? "EIO" : "ENOSPC";
        const tear = true;
        const label = `${code} at step ${at} (${log[at - 1]})`;
        const dir = freshDir();
        copyDir(base, dir);
        const before = filesOf(dir);
        const fs = new FaultyFileSystem(realFs, { kind: "fail", at, code, tear });
        const outcome = await runWorkload(dir, fs, sync);
        expect(fs.fired, label).toBe(true);
        expectOnlyIoFailures(outcome, label);
        if (!outcome.loaded) expect(filesOf(dir), `${label}: a failed open changes no file`).toEqual(before);
        const state = await reopen(dir);
        expect(state.entries.map(plain), label).toEqual(stateAfter(outcome.acked).map(plain));
        removeDir(dir);
      }
    });
  }

  it("a failed write is cut off, and the store keeps working", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const fs = new FaultyFileSystem(realFs);
    const backend = new FileBackend(dir, { fs });
    await backend.load();
    await backend.accept();
    const journal = join(dir, "moomem", "journal.1.jsonl");
    const size = readFileSync(journal).length;
    fs.armFailure(/^write journal/, "ENOSPC");
    const error = await backend.append([{ entries: [entry("lost", 20)] }]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "IO_FAILURE" });
    expect((error as Error).message).toMatch(/ENOSPC.*nothing of this write was kept.*disk is full/);
    expect((error as Error).cause).toMatchObject({ code: "ENOSPC" });
    expect(readFileSync(journal).length).toBe(size);
    await backend.append([{ entries: [entry("kept", 21)] }]);
    await backend.close();
    expect((await reopen(dir)).entries.map((e) => e.id)).toEqual(["e1", "e2", "e3", "kept"]);
  });

  it("a failed fdatasync poisons the backend until it is reopened", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const fs = new FaultyFileSystem(realFs);
    const backend = new FileBackend(dir, { fs });
    await backend.load();
    await backend.accept();
    fs.armFailure(/^datasync journal/, "EIO");
    const first = await backend.append([{ entries: [entry("unsynced", 20)] }]).catch((e: unknown) => e);
    expect(first).toMatchObject({ code: "IO_FAILURE" });
    expect((first as Error).message).toMatch(/fdatasync .* failed \(EIO.*close it and open it again/);
    const steps = fs.steps;
    // Every later call is refused without touching the disk (an fsync is never retried).
    await expect(backend.append([{ entries: [entry("later", 21)] }])).rejects.toBe(first);
    await expect(backend.compact({ embedder: EMBEDDER, count: 0, entries: [] })).rejects.toBe(first);
    expect(backend.wantsCompaction()).toBe(false);
    expect(fs.log.slice(steps)).toEqual([]);
    await backend.close();
    expect((await reopen(dir)).entries.map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
  });

  it("a failed background fdatasync (sync: interval) poisons, and close does not retry it", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const fs = new FaultyFileSystem(realFs);
    const backend = new FileBackend(dir, { fs, sync: "interval", syncIntervalMs: 5 });
    await backend.load();
    await backend.accept();
    fs.armFailure(/^datasync journal/, "EIO");
    await backend.append([{ entries: [entry("acked", 20)] }]);
    // However long the machine takes to run the timer: the test's timeout is the only bound.
    while (!fs.fired) await new Promise((r) => setTimeout(r, 5));
    // The failure reaches the backend in microtasks: one more turn of the event loop and it is recorded.
    await new Promise((r) => setTimeout(r, 0));
    await expect(backend.append([{ entries: [entry("refused", 21)] }])).rejects.toMatchObject({
      code: "IO_FAILURE",
      message: expect.stringMatching(/background fdatasync/),
    });
    const steps = fs.steps;
    await backend.close();
    expect(fs.log.slice(steps).some((s) => s.startsWith("datasync"))).toBe(false);
    // Acknowledged (written) before the failure, so still there for a reopen on a healthy disk.
    expect((await reopen(dir)).entries.map((e) => e.id)).toEqual(["e1", "e2", "e3", "acked"]);
  });

  // Two runs, so neither verdict depends on how fast the machine appends: an interval far longer than
  // the test shows the appends never sync by themselves; a short one shows the timer does sync.
  it("with sync: interval, does not sync per write: nothing before the interval is up, the tail at close", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const fs = new FaultyFileSystem(realFs);
    const backend = new FileBackend(dir, { fs, sync: "interval", syncIntervalMs: 3_600_000 });
    await backend.load();
    // The open's own repair (it syncs the journal a predecessor left) is done, so what follows counts the writes' syncs only.
    await backend.accept();
    const syncs = (): number => fs.log.filter((s) => s.startsWith("datasync journal")).length;
    const start = syncs();
    for (let i = 0; i < 20; i++) await backend.append([{ entries: [entry(`i${i}`, 20 + i)] }]);
    expect(syncs()).toBe(start);
    await backend.close();
    expect(syncs()).toBe(start + 1);
  });

  it("syncs in the background with sync: interval: its timer syncs the appended tail, no close needed", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const fs = new FaultyFileSystem(realFs);
    const backend = new FileBackend(dir, { fs, sync: "interval", syncIntervalMs: 5 });
    await backend.load();
    // The open's own repair (it syncs the journal a predecessor left) is done, so what follows counts the writes' syncs only.
    await backend.accept();
    const syncs = (): number => fs.log.filter((s) => s.startsWith("datasync journal")).length;
    const start = syncs();
    for (let i = 0; i < 20; i++) await backend.append([{ entries: [entry(`i${i}`, 20 + i)] }]);
    while (syncs() === start) await new Promise((r) => setTimeout(r, 5));
    expect(syncs()).toBeGreaterThan(start);
    await backend.close();
  });

  it("sync: none writes without fdatasync until compaction and close", async () => {
    const dir = freshDir();
    copyDir(base, dir);
    const fs = new FaultyFileSystem(realFs);
    const backend = new FileBackend(dir, { fs, sync: "none" });
    await backend.load();
    await backend.accept();
    const steps = fs.steps;
    for (let i = 0; i < 5; i++) await backend.append([{ entries: [entry(`n${i}`, 20 + i)] }]);
    expect(fs.log.slice(steps).filter((s) => s.startsWith("datasync"))).toEqual([]);
    await backend.close();
    expect(fs.log.slice(steps).filter((s) => s.startsWith("datasync"))).toEqual(["datasync journal.1.jsonl"]);
  });
});

describe("FileBackend crashing at every step", () => {
  let base: string;
  beforeAll(async () => {
    base = await buildBase();
  });

  it("of a compaction reopens to the same state", async () => {
    const probeDir = freshDir();
    copyDir(base, probeDir);
    const probe = new FaultyFileSystem(realFs);
    const backend = new FileBackend(probeDir, { fs: probe });
    await backend.load();
    const loadSteps = probe.steps;
    const state = stateAfter(BASE_BATCHES);
    await backend.compact({ embedder: EMBEDDER, count: state.length, entries: state });
    const total = probe.steps;
    await backend.close();
    expect(total - loadSteps).toBeGreaterThan(15);

    for (let at = loadSteps + 1; at <= total; at++) {
      for (const when of crashModes(probe.log[at - 1]!)) {
        const label = `crash ${when} step ${at} (${probe.log[at - 1]})`;
        const dir = freshDir();
        copyDir(base, dir);
        const fs = new FaultyFileSystem(realFs, { kind: "crash", at, when });
        const crashing = new FileBackend(dir, { fs });
        await crashing.load();
        const result = await crashing.compact({ embedder: EMBEDDER, count: state.length, entries: state }).then(
          () => "resolved",
          (error: unknown) => error,
        );
        expect(fs.crashed, label).toBe(true);
        if (result !== "resolved") expect(result, label).toMatchObject({ code: "IO_FAILURE" });
        await crashing.close();

        const reopened = new FileBackend(dir);
        const loaded = await reopened.load();
        expect(loaded.entries.map(plain), label).toEqual(state.map(plain));
        expect(loaded.truncatedRecovered, label).toBe(0);
        // Still a working store: a write lands, and no leftovers of the crash remain.
        await reopened.append([{ entries: [entry("after", 30)] }]);
        await reopened.close();
        const files = Object.keys(filesOf(dir));
        expect(
          files.filter((f) => f.endsWith(".tmp") || f.endsWith("LOCK")),
          label,
        ).toEqual([]);
        expect(files.filter((f) => f.includes("journal.")).length, label).toBe(1);
        expect(files.filter((f) => f.includes("slot")).length, label).toBe(1);
        expect(
          (await reopen(dir)).entries.map((e) => e.id),
          label,
        ).toEqual(["e1", "e2", "e3", "after"]);
        removeDir(dir);
      }
    }
  });

  it("of the write path keeps every acknowledged write and at most the one in flight", async () => {
    const { total, log } = await countSteps(base, "always");
    for (let at = 1; at <= total; at++) {
      for (const when of crashModes(log[at - 1]!)) {
        const label = `crash ${when} step ${at} (${log[at - 1]})`;
        const dir = freshDir();
        copyDir(base, dir);
        const fs = new FaultyFileSystem(realFs, { kind: "crash", at, when });
        const outcome = await runWorkload(dir, fs, "always");
        expect(fs.crashed, label).toBe(true);
        const state = (await reopen(dir)).entries.map(plain);
        // Each batch is atomic, a group is not: any prefix of the group in flight may have been kept.
        const allowed: Record<string, unknown>[][] = [];
        for (let kept = 0; kept <= outcome.inFlight.length; kept++) {
          allowed.push(stateAfter([...outcome.acked, ...outcome.inFlight.slice(0, kept)]).map(plain));
        }
        expect(allowed, label).toContainEqual(state);
        removeDir(dir);
      }
    }
  });
});

describe("FileBackend failing during recovery", () => {
  let base: string;
  let expected: Record<string, unknown>[];
  beforeAll(async () => {
    base = await buildBase();
    expected = stateAfter(BASE_BATCHES).map(plain);
    const m = join(base, "moomem");
    // A torn tail to cut and leftovers to delete: recovery has writes to do.
    appendFileSync(join(m, "journal.1.jsonl"), '{"n":2,"s":1,"t":5,"crc":1,"ent');
    writeFileSync(join(m, "journal.0.jsonl"), "stale");
    writeFileSync(join(m, "slot1.jsonl.tmp"), "half");
  });

  it("keeps the store openable whatever step fails or crashes", async () => {
    const probeDir = freshDir();
    copyDir(base, probeDir);
    const probe = new FaultyFileSystem(realFs);
    const backend = new FileBackend(probeDir, { fs: probe });
    expect((await backend.load()).truncatedRecovered).toBe(1);
    // The repair runs when the open is accepted: its steps count as part of opening.
    await backend.accept();
    const total = probe.steps;
    await backend.close();

    const plans: FaultPlan[] = [];
    for (let at = 1; at <= total; at++) {
      plans.push({ kind: "fail", at, code: "EIO" }, { kind: "crash", at, when: "after" });
    }
    for (const plan of plans) {
      const label = `${plan.kind} at step ${plan.kind === "none" ? 0 : plan.at} (${probe.log[(plan.kind === "none" ? 0 : plan.at) - 1]})`;
      const dir = freshDir();
      copyDir(base, dir);
      const fs = new FaultyFileSystem(realFs, plan);
      const opening = new FileBackend(dir, { fs });
      const result = await opening
        .load()
        .then(async (state) => {
          await opening.accept();
          return state;
        })
        .catch((error: unknown) => error);
      if (result instanceof Error) {
        expect(result, label).toMatchObject({ code: "IO_FAILURE" });
      } else {
        expect((result as { entries: unknown[] }).entries.length, label).toBe(3);
      }
      await opening.close();
      const state = await reopen(dir);
      expect(state.entries.map(plain), label).toEqual(expected);
      removeDir(dir);
    }
  });
});
