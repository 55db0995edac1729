// The writer lock across processes and within one; LOCK files of moomem 0.1; killed holders; read-only opens that write nothing.
//
// Threads, pid namespaces, leases and many writers at once: file-lock-writers.test.ts and file-lock-lease.test.ts.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { parseLockInfo, processStartToken } from "../../src/persistence/file/file-lock-legacy.ts";
import { MoomemError } from "../../src/errors.ts";
import { entry, filesOf, makeTempDir, removeDir } from "./helpers/store-files.ts";

const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
const HOLDER = fileURLToPath(new URL("./fixtures/lock-holder.ts", import.meta.url));

let root: string;
let counter = 0;
beforeAll(() => {
  root = makeTempDir("lock");
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

async function loadError(backend: FileBackend): Promise<MoomemError> {
  const error = await backend.load().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MoomemError);
  return error as MoomemError;
}

function lockOf(dir: string): ReturnType<typeof parseLockInfo> {
  return parseLockInfo(readFileSync(join(dir, "moomem", "LOCK")));
}

/** Starts a child that holds the lock of `dir`; resolves with the holder's pid once it is ready. */
function startHolder(dir: string): Promise<{ child: ChildProcess; pid: number; exited: Promise<void> }> {
  const child = spawn(TSX, [HOLDER, dir], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready (\d+)\n/.exec(out);
      if (m !== null) resolve({ child, pid: Number(m[1]), exited });
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`lock holder exited (${String(code)}) before it was ready: ${err}`)));
  });
}

describe("writer lock within one process", () => {
  it("refuses a second writable open of the same folder, however it is spelled", async () => {
    const dir = freshDir();
    const first = new FileBackend(dir);
    await first.load();
    for (const spelling of [dir, `${dir}/`, join(dir, ".", "")]) {
      const error = await loadError(new FileBackend(spelling));
      expect(error.code).toBe("STORE_LOCKED");
      expect(error.message).toMatch(new RegExp(`open for writing by pid ${process.pid} \\(this thread\\).*readOnly`));
    }
    // The refused opens did not disturb the holder.
    await first.append([{ entries: [entry("a", 1)] }]);
    expect(lockOf(dir)?.pid).toBe(process.pid);
    await first.close();
    expect(existsSync(join(dir, "moomem", "LOCK"))).toBe(false);
    const next = new FileBackend(dir);
    expect((await next.load()).entries.map((e) => e.id)).toEqual(["a"]);
    await next.close();
  });

  it("lets exactly one of two concurrent opens win", async () => {
    const dir = freshDir();
    const backends = [new FileBackend(dir), new FileBackend(dir), new FileBackend(dir)];
    const results = await Promise.allSettled(backends.map((b) => b.load()));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "STORE_LOCKED" });
    for (const b of backends) await b.close();
  });

  it("takes over a moomem 0.1 LOCK left by a store of this process, a dead process, or in an unreadable state", async () => {
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => dead.once("exit", resolve));
    const leftovers = [
      JSON.stringify({ pid: process.pid, start: null, since: 1, token: "old" }),
      JSON.stringify({ pid: dead.pid, start: null, since: 1, token: "dead" }),
      "garbage \u0000",
      "",
    ];
    for (const content of leftovers) {
      const dir = freshDir();
      mkdirSync(join(dir, "moomem"), { recursive: true });
      writeFileSync(join(dir, "moomem", "LOCK"), content);
      const backend = new FileBackend(dir);
      await backend.load();
      // The open was refused by nothing: the LOCK a 0.1 moomem reads now names this process.
      await backend.accept();
      const info = lockOf(dir);
      expect(info?.pid).toBe(process.pid);
      expect(info?.token).not.toBe("old");
      await backend.close();
      expect(existsSync(join(dir, "moomem", "LOCK"))).toBe(false);
    }
  });

  // /proc start times exist on Linux only; elsewhere the lock relies on the pid alone.
  if (process.platform === "linux")
    it("respects a live moomem 0.1 holder, told from a reused pid by its start time", async () => {
      const fs = new NodeFileSystem();
      const parent = process.ppid;
      const start = await processStartToken(fs, parent);
      expect(start).toMatch(/^[0-9a-f-]+:\d+$/);
      const dir = freshDir();
      mkdirSync(join(dir, "moomem"), { recursive: true });
      const lock = join(dir, "moomem", "LOCK");
      // Same pid, same start: the holder is alive.
      writeFileSync(lock, JSON.stringify({ pid: parent, start, since: Date.UTC(2026, 0, 2), token: "live" }));
      const error = await loadError(new FileBackend(dir));
      expect(error.code).toBe("STORE_LOCKED");
      expect(error.message).toContain(`by pid ${parent} since 2026-01-02T00:00:00.000Z, an older moomem`);
      expect(error.message).toMatch(/readOnly/);
      expect(readFileSync(lock, "utf8")).toContain('"token":"live"');
      // Same pid, another start time: the pid was reused after the holder died.
      writeFileSync(lock, JSON.stringify({ pid: parent, start: `${start!.split(":")[0]}:1`, since: 1, token: "reused" }));
      const backend = new FileBackend(dir);
      await backend.load();
      await backend.accept();
      expect(lockOf(dir)?.pid).toBe(process.pid);
      await backend.close();
    });
});

describe("writer lock across processes", () => {
  it("names a live holder, allows read-only opens meanwhile, and frees the store at once when the holder is SIGKILLed", async () => {
    const dir = freshDir();
    const holder = await startHolder(dir);
    try {
      expect(lockOf(dir)?.pid).toBe(holder.pid);
      const error = await loadError(new FileBackend(dir));
      expect(error.code).toBe("STORE_LOCKED");
      expect(error.message).toContain(`by pid ${holder.pid} since`);
      expect(error.message).toContain("{ readOnly: true }");

      const before = filesOf(dir);
      const reader = new FileBackend(dir, { readOnly: true });
      expect((await reader.load()).entries.map((e) => e.id)).toEqual(["held"]);
      await reader.close();
      expect(filesOf(dir)).toEqual(before);

      process.kill(holder.pid, "SIGKILL");
      await holder.exited;
      // The first open after the kill succeeds: nothing has to expire first.
      const next = new FileBackend(dir);
      const state = await next.load();
      await next.accept();
      expect(state.entries.map((e) => e.id)).toEqual(["held"]);
      expect(lockOf(dir)?.pid).toBe(process.pid);
      await next.close();
    } finally {
      holder.child.kill("SIGKILL");
    }
  });

  // Linux only: needs /proc to see that the dead holder is a zombie.
  if (process.platform === "linux")
    it("does not mistake a killed holder that nobody reaped (a zombie) for a live one", async () => {
      const dir = freshDir();
      // The holder's parent is `sleep`, which never reaps it: after SIGKILL it stays a zombie that still answers signal 0.
      const script = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(HOLDER)} ${JSON.stringify(dir)} forever & exec sleep 3600`;
      const shell = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "pipe"], cwd: fileURLToPath(new URL("../../", import.meta.url)) });
      try {
        const pid = await new Promise<number>((resolve, reject) => {
          let out = "";
          shell.stdout!.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            const m = /ready (\d+)\n/.exec(out);
            if (m !== null) resolve(Number(m[1]));
          });
          shell.once("exit", () => reject(new Error("the holder's shell exited early")));
        });
        process.kill(pid, "SIGKILL");
        let stat = "";
        // Until the kernel shows it dead, however busy the machine (the test's timeout bounds the wait);
        // `sleep` outlives any test run, so nobody reaps it meanwhile.
        while (!stat.includes(") Z ") && stat !== "(reaped)") {
          await new Promise((r) => setTimeout(r, 20));
          stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "(reaped)";
        }
        expect(stat, "the killed holder should be an unreaped zombie").toContain(") Z ");
        expect(lockOf(dir)?.pid).toBe(pid);
        const next = new FileBackend(dir);
        expect((await next.load()).entries.map((e) => e.id)).toEqual(["held"]);
        await next.close();
      } finally {
        shell.kill("SIGKILL");
      }
    });

  it("is released by a holder that closes", async () => {
    const dir = freshDir();
    const holder = await startHolder(dir);
    holder.child.stdin!.end();
    await holder.exited;
    expect(existsSync(join(dir, "moomem", "LOCK"))).toBe(false);
    const next = new FileBackend(dir);
    await next.load();
    await next.close();
  });
});

describe("read-only opens", () => {
  it("write nothing: no lock, no torn-tail cut, no cleanup, no journal", async () => {
    const dir = freshDir();
    const writer = new FileBackend(dir);
    await writer.load();
    await writer.append([{ entries: [entry("a", 1)] }]);
    await writer.close();
    const m = join(dir, "moomem");
    appendFileSync(join(m, "journal.0.jsonl"), '{"n":2,"s":1,"t":1,"crc":7,"ent');
    writeFileSync(join(m, "slot0.jsonl.tmp"), "left by a crash");
    const before = filesOf(dir);
    const reader = new FileBackend(dir, { readOnly: true });
    const state = await reader.load();
    expect(state.entries.map((e) => e.id)).toEqual(["a"]);
    expect(state.truncatedRecovered).toBe(1);
    await expect(reader.append([{ entries: [entry("b", 2)] }])).rejects.toMatchObject({ code: "READ_ONLY" });
    await reader.close();
    expect(filesOf(dir)).toEqual(before);
  });

  it("open alongside a writer of the same process and see what it wrote", async () => {
    const dir = freshDir();
    const writer = new FileBackend(dir);
    await writer.load();
    await writer.append([{ entries: [entry("a", 1)] }]);
    const reader = new FileBackend(dir, { readOnly: true });
    expect((await reader.load()).entries.map((e) => e.id)).toEqual(["a"]);
    await reader.close();
    await writer.append([{ entries: [entry("b", 2)] }]);
    await writer.close();
  });
});

describe("read-only opens during compactions", () => {
  it("always see a complete state while a writer appends and compacts", async () => {
    const dir = freshDir();
    const writer = new FileBackend(dir);
    await writer.load();
    const all = [];
    let stop = false;
    // How many appends have resolved, and a way to wait for the next one.
    let appended = 0;
    const next: { resolve: (() => void) | null } = { resolve: null };
    const writing = (async () => {
      for (let i = 1; !stop; i++) {
        const e = entry(`w${i}`, i);
        all.push(e);
        await writer.append([{ entries: [e] }]);
        appended = i;
        next.resolve?.();
        if (i % 3 === 0) await writer.compact({ embedder: { id: "x", dim: 4 }, count: all.length, entries: all });
      }
    })();
    let reads = 0;
    const seen = new Set<number>();
    try {
      for (; reads < 60; reads++) {
        // Each read starts once the writer has appended past what the last read saw (never after a fixed
        // sleep, whose worth depends on the machine's speed); the writer keeps appending and compacting
        // while the read runs.
        const last = Math.max(0, ...seen);
        while (appended <= last) await new Promise<void>((resolve) => (next.resolve = resolve));
        next.resolve = null;
        const reader = new FileBackend(dir, { readOnly: true });
        const state = await reader.load();
        await reader.close();
        seen.add(state.entries.length);
        // A prefix of what the writer wrote, never a mix of generations with gaps.
        const ids = state.entries.map((e) => e.id);
        expect(ids).toEqual(ids.map((_, k) => `w${k + 1}`));
      }
    } finally {
      stop = true;
      await writing;
      await writer.close();
    }
    expect(reads).toBe(60);
    // Every read saw a later state than the one before: 60 different moments of the writer's run.
    expect(seen.size).toBe(60);
  });
});

describe("FileBackend options", () => {
  it("are validated with a clear INVALID_ARGUMENT", () => {
    const bad: [unknown, unknown, RegExp][] = [
      ["", {}, /directory path/],
      ["./x", { sync: "sometimes" }, /sync must be "always", "interval" or "none", got "sometimes"/],
      ["./x", { syncIntervalMs: 0 }, /syncIntervalMs must be/],
      ["./x", { syncIntervalMs: Number.NaN }, /syncIntervalMs must be/],
      ["./x", { compactAfterBytes: -5 }, /compactAfterBytes must be a positive whole number of bytes, got -5/],
      ["./x", { readOnly: "yes" }, /readOnly must be true or false/],
      ["./x", { fs: {} }, /FileSystem seam/],
      ["./x", { fs: { readChunks: () => null, open: () => null } }, /FileSystem seam .*it has no mkdirp, .*listenSocket, probeSocket, identity$/],
      ["./x", { now: 5 }, /now must be a function/],
      ["./x", { lockLeaseMs: 50 }, /lockLeaseMs must be a whole number of ms in \[200, 600000\], got 50/],
      ["./x", { lockLeaseMs: 1.5e6 }, /lockLeaseMs must be/],
      ["https://example.com/memory", {}, /needs a folder on this machine, got the URL "https:\/\/example.com\/memory"/],
      ["file://host/share", {}, /not a usable file: URL/],
      ["./x", null, /options must be an object/],
    ];
    for (const [dir, options, message] of bad) {
      let caught: unknown = null;
      try {
        new FileBackend(dir as string, options as object);
      } catch (error) {
        caught = error;
      }
      expect(caught, String(message)).toMatchObject({ code: "INVALID_ARGUMENT" });
      expect((caught as Error).message).toMatch(message);
    }
  });

  it("refuses a second load and calls after close", async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    await backend.load();
    await expect(backend.load()).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await backend.close();
    await expect(backend.append([{ entries: [entry("a", 1)] }])).rejects.toMatchObject({ code: "STORE_CLOSED" });
    await expect(backend.compact({ embedder: { id: "x", dim: 1 }, count: 0, entries: [] })).rejects.toMatchObject({ code: "STORE_CLOSED" });
    await expect(backend.load()).rejects.toMatchObject({ code: "STORE_CLOSED" });
  });

  it("gives the lock back when closed while still opening", async () => {
    const dir = freshDir();
    const backend = new FileBackend(dir);
    const loading = backend.load();
    await backend.close();
    await expect(loading).rejects.toMatchObject({ code: "STORE_CLOSED" });
    expect(existsSync(join(dir, "moomem", "LOCK"))).toBe(false);
    const next = new FileBackend(dir);
    await next.load();
    await next.close();
  });

  it("compacts when the journal outgrows compactAfterBytes, and reports real sizes and times", async () => {
    const dir = freshDir();
    let now = 1_800_000_000_000;
    const backend = new FileBackend(dir, { compactAfterBytes: 2000, now: () => now });
    await backend.load();
    expect(backend.stats().lastWriteAt).toBeNull();
    const written = [];
    for (let i = 1; backend.wantsCompaction() === false; i++) {
      const e = entry(`e${i}`, i);
      written.push(e);
      now += 1000;
      await backend.append([{ entries: [e] }]);
      expect(i).toBeLessThan(20);
    }
    expect(backend.stats().lastWriteAt).toBe(now);
    // A held lock's socket file has no bytes.
    const files = (): number => Object.values(filesOf(dir)).reduce((sum, b64) => sum + (b64 === "<socket>" ? 0 : Buffer.from(b64, "base64").length), 0);
    expect(backend.stats().bytesOnDisk).toBe(files());
    await backend.compact({ embedder: { id: "x", dim: 4 }, count: written.length, entries: written });
    expect(backend.wantsCompaction()).toBe(false);
    expect(backend.stats().bytesOnDisk).toBe(files());
    await backend.close();
    const reopened = new FileBackend(dir, { now: () => 0 });
    const state = await reopened.load();
    expect(state.lastWriteAt).toBe(now);
    expect(reopened.stats().bytesOnDisk).toBe(files());
    await reopened.close();
  });
});
