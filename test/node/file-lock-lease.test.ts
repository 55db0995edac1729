// The writer lock where no socket can live (a leased lock point) and writers whose event loop stalls.
//
// Writers are real processes (fixtures/lock-client.ts) told to use no sockets, with short leases so no test waits
// long. No verdict depends on speed: a test waits until a lease has lapsed by the holder's own clock (the point's
// modification time), then checks what must hold from then on.

import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { NodeFileSystem } from "../../src/persistence/file/node-file-system.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";
import { bundleFixture } from "./helpers/script-runner.ts";
import { LockClient, type ClientConfig } from "./helpers/lock-clients.ts";

const CLIENT = fileURLToPath(new URL("./fixtures/lock-client.ts", import.meta.url));
const LEASE = 400;

let root: string;
let client: string;
let counter = 0;
const running: LockClient[] = [];

beforeAll(() => {
  root = makeTempDir("lease");
  client = bundleFixture(CLIENT, root);
});
afterAll(async () => {
  for (const c of running) c.kill();
  await Promise.all(running.map((c) => c.exited));
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

function start(config: ClientConfig): LockClient {
  const c = LockClient.process(client, config);
  running.push(c);
  return c;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The highest lock point of a store folder and its modification time (when its lease was last renewed). */
function topPoint(dir: string): { name: string; mtimeMs: number; size: number } {
  const names = readdirSync(join(dir, "moomem")).filter((n) => /^LOCK\.\d+$/.test(n));
  const name = names.sort((a, b) => Number(a.slice(5)) - Number(b.slice(5))).at(-1)!;
  const st = statSync(join(dir, "moomem", name));
  return { name, mtimeMs: st.mtimeMs, size: st.size };
}

/** Waits until the top point's lease has lapsed by the wall clock (its holder stopped renewing it). */
async function waitUntilLapsed(dir: string, lease: number): Promise<void> {
  for (;;) {
    const left = topPoint(dir).mtimeMs + lease - Date.now();
    if (left < 0) return;
    await sleep(left + 20);
  }
}

async function storedIds(dir: string): Promise<string[]> {
  const reader = new FileBackend(dir, { readOnly: true });
  const state = await reader.load();
  await reader.close();
  return state.entries.map((e) => e.id).sort();
}

describe("a leased lock point (no sockets on this file system)", () => {
  it("is a file renewed by its live holder, and refuses other writers, leased or not", async () => {
    const dir = freshDir();
    const holder = start({ dir, noSockets: true, lockLeaseMs: 1000 });
    expect(await holder.next()).toMatchObject({ event: "opened" });
    const first = topPoint(dir);
    expect(first.size).toBeGreaterThan(0);
    // The heartbeat moves the point's time every quarter lease (bounded by attempts, not by a time limit).
    let renewed = false;
    for (let i = 0; i < 200 && !renewed; i++) {
      await sleep(50);
      renewed = topPoint(dir).mtimeMs > first.mtimeMs;
    }
    expect(renewed).toBe(true);
    for (const config of [{ dir, noSockets: true }, { dir }]) {
      const contender = start(config);
      const answer = await contender.next();
      expect(answer).toMatchObject({ event: "refused", code: "STORE_LOCKED" });
      expect(answer.message).toMatch(/its lease was renewed [\d.]+ s ago and lapses 1\.0 s after the last renewal/);
    }
    expect(await holder.ask("close")).toEqual({ event: "closed" });
  }, 60_000);

  it("of a holder killed by SIGKILL blocks the store for at most one lease after its last renewal", async () => {
    const dir = freshDir();
    const holder = start({ dir, noSockets: true, lockLeaseMs: LEASE });
    expect(await holder.next()).toMatchObject({ event: "opened" });
    expect(await holder.ask("append h1")).toEqual({ event: "appended", id: "h1" });
    holder.kill();
    await holder.exited;
    await waitUntilLapsed(dir, LEASE);
    // Once the lease has lapsed, the first open succeeds.
    const next = start({ dir, noSockets: true, lockLeaseMs: LEASE });
    expect(await next.next()).toMatchObject({ event: "opened" });
    expect(await next.ask("append n1")).toEqual({ event: "appended", id: "n1" });
    expect(await next.ask("close")).toEqual({ event: "closed" });
    expect(await storedIds(dir)).toEqual(["h1", "n1"]);
  }, 60_000);
});

/** A file system with sockets but no hard links (some FUSE and SMB mounts). */
class NoLinkFileSystem extends NodeFileSystem {
  override link(): Promise<boolean> {
    return Promise.reject(Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" }));
  }
}

describe("a file system with sockets but no hard links", () => {
  it("falls back to a leased point, which other writers respect", async () => {
    const dir = freshDir();
    const writer = new FileBackend(dir, { fs: new NoLinkFileSystem(), lockLeaseMs: 5000 });
    await writer.load();
    await writer.accept();
    const point = topPoint(dir);
    expect(point.size).toBeGreaterThan(0);
    expect(statSync(join(dir, "moomem", point.name)).isFile()).toBe(true);
    const second = new FileBackend(dir);
    await expect(second.load()).rejects.toMatchObject({
      code: "STORE_LOCKED",
      message: expect.stringMatching(/lapses 5\.0 s after the last renewal/) as unknown,
    });
    await second.close();
    await writer.append([
      {
        entries: [
          {
            id: "a",
            userId: "user-1",
            content: "x",
            kind: "fact",
            status: "active",
            createdAt: 1,
            updatedAt: 1,
            seq: 1,
            metadata: {},
            lifecycle: {},
            embedding: null,
          },
        ],
      },
    ]);
    await writer.close();
    expect(topPoint(dir).size).toBe(0);
    expect(await storedIds(dir)).toEqual(["a"]);
  });
});

describe("a writer whose event loop stalls", () => {
  it("past its lease, while another writer took over: refuses to write (STORE_LOCKED), and what the successor wrote stays", async () => {
    const dir = freshDir();
    const marker = join(root, `go-${counter}`);
    const stalled = start({ dir, noSockets: true, lockLeaseMs: LEASE });
    expect(await stalled.next()).toMatchObject({ event: "opened" });
    expect(await stalled.ask("append a1")).toEqual({ event: "appended", id: "a1" });
    stalled.send(`stall ${marker}`);
    await waitUntilLapsed(dir, LEASE);
    const successor = start({ dir, noSockets: true, lockLeaseMs: LEASE });
    expect(await successor.next()).toMatchObject({ event: "opened" });
    expect(await successor.ask("append b1")).toEqual({ event: "appended", id: "b1" });
    writeFileSync(marker, "");
    expect(await stalled.next()).toEqual({ event: "resumed" });

    const refused = await stalled.ask("append a2");
    expect(refused).toMatchObject({ event: "failed", code: "STORE_LOCKED" });
    expect(refused.message).toMatch(
      /lost its writer lock .* its lease \(400 ms\) was not renewed for [\d.]+ s \(was the event loop blocked\?\), and pid \d+ .* took the store over/,
    );
    // Every later write is refused the same way; closing gives back nothing of the successor's.
    expect(await stalled.ask("append a3")).toMatchObject({ event: "failed", code: "STORE_LOCKED" });
    expect(await stalled.ask("close")).toMatchObject({ event: "closed" });
    expect(await successor.ask("append b2")).toEqual({ event: "appended", id: "b2" });
    expect(await successor.ask("close")).toEqual({ event: "closed" });
    expect(await storedIds(dir)).toEqual(["a1", "b1", "b2"]);
  }, 60_000);

  it("past its lease, with no one taking over: renews before its next write and goes on", async () => {
    const dir = freshDir();
    const marker = join(root, `go-${counter}`);
    const writer = start({ dir, noSockets: true, lockLeaseMs: LEASE });
    expect(await writer.next()).toMatchObject({ event: "opened" });
    writer.send(`stall ${marker}`);
    await waitUntilLapsed(dir, LEASE);
    writeFileSync(marker, "");
    expect(await writer.next()).toEqual({ event: "resumed" });
    expect(await writer.ask("append a1")).toEqual({ event: "appended", id: "a1" });
    expect(await writer.ask("close")).toEqual({ event: "closed" });
    expect(await storedIds(dir)).toEqual(["a1"]);
  }, 60_000);

  it("holding a socket lock point: keeps it however long it stalls (the kernel answers for it)", async () => {
    const dir = freshDir();
    const marker = join(root, `go-${counter}`);
    const writer = start({ dir, lockLeaseMs: LEASE });
    expect(await writer.next()).toMatchObject({ event: "opened" });
    writer.send(`stall ${marker}`);
    // Several leases' worth of stall: a socket has no lease to lapse.
    await sleep(3 * LEASE);
    const contender = start({ dir });
    expect(await contender.next()).toMatchObject({ event: "refused", code: "STORE_LOCKED" });
    writeFileSync(marker, "");
    expect(await writer.next()).toEqual({ event: "resumed" });
    expect(await writer.ask("append a1")).toEqual({ event: "appended", id: "a1" });
    expect(await writer.ask("close")).toEqual({ event: "closed" });
    expect(existsSync(marker)).toBe(true);
    expect(await storedIds(dir)).toEqual(["a1"]);
  }, 60_000);
});
