// Exactly one writer per store folder: across worker threads, processes and pid namespaces (containers), under contention.
//
// Every writer here is a real thread or process (fixtures/lock-client.ts, fixtures/lock-hammer.ts), and every
// verdict comes from reopening the files: acknowledged writes are all there, exactly once, and nothing else.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";
import { RUNTIME, bundleFixture, runtimeCommand } from "./helpers/script-runner.ts";
import { LockClient, NEW_PID_NAMESPACE, pidNamespaceUnavailable, type ClientConfig } from "./helpers/lock-clients.ts";

const CLIENT = fileURLToPath(new URL("./fixtures/lock-client.ts", import.meta.url));
const HAMMER = fileURLToPath(new URL("./fixtures/lock-hammer.ts", import.meta.url));

let root: string;
let client: string;
let hammer: string;
let counter = 0;
const noPidNamespaces = pidNamespaceUnavailable();

beforeAll(() => {
  root = makeTempDir("writers");
  client = bundleFixture(CLIENT, root);
  hammer = bundleFixture(HAMMER, root);
  if (noPidNamespaces !== null) console.log(`skipping the pid-namespace lock tests: ${noPidNamespaces}`);
});
afterAll(() => {
  removeDir(root);
});

function freshDir(): string {
  return join(root, `s${++counter}`);
}

/** Ids of the entries stored in `dir`, read without taking the lock. */
async function storedIds(dir: string): Promise<string[]> {
  const reader = new FileBackend(dir, { readOnly: true });
  const state = await reader.load();
  await reader.close();
  return state.entries.map((e) => e.id).sort();
}

type Start = (config: ClientConfig) => LockClient;
const asThread: Start = (config) => LockClient.thread(client, config);
const asProcess: Start = (config) => LockClient.process(client, config);
const inPidNamespace: Start = (config) => LockClient.process(client, config, NEW_PID_NAMESPACE);

/**
 * Starts `first`, waits until it holds the store and has written, then starts `second`, which must be
 * refused; then both end and the store holds exactly what was acknowledged.
 */
async function expectOneWriter(first: Start, second: Start, holderPattern: RegExp): Promise<void> {
  const dir = freshDir();
  const a = first({ dir });
  const b: LockClient[] = [];
  try {
    expect(await a.next()).toMatchObject({ event: "opened" });
    expect(await a.ask("append a1")).toEqual({ event: "appended", id: "a1" });
    const contender = second({ dir });
    b.push(contender);
    const answer = await contender.next();
    if (answer.event === "opened") {
      // The bug this guards against: show what it costs before failing.
      await contender.ask("append b1");
      await a.ask("append a2");
    }
    expect(answer).toMatchObject({ event: "refused", code: "STORE_LOCKED" });
    expect(answer.message).toMatch(holderPattern);
    expect(answer.message).toMatch(/readOnly/);
    expect(await a.ask("append a2")).toEqual({ event: "appended", id: "a2" });
    expect(await a.ask("close")).toEqual({ event: "closed" });
    expect(await storedIds(dir)).toEqual(["a1", "a2"]);
  } finally {
    a.kill();
    for (const c of b) c.kill();
    await a.exited;
  }
}

describe("one writer per folder", () => {
  it("two worker threads of one process: the second is refused, naming the first", async () => {
    await expectOneWriter(asThread, asThread, new RegExp(`pid ${process.pid}\\b.*thread \\d+`));
  }, 60_000);

  it("a worker thread and the main thread: the second is refused", async () => {
    const dir = freshDir();
    const main = new FileBackend(dir);
    await main.load();
    const thread = asThread({ dir });
    try {
      const answer = await thread.next();
      expect(answer).toMatchObject({ event: "refused", code: "STORE_LOCKED" });
      expect(answer.message).toContain(`pid ${process.pid}`);
    } finally {
      thread.kill();
      await main.close();
    }
  }, 60_000);

  it("two processes: the second is refused, naming the first", async () => {
    await expectOneWriter(asProcess, asProcess, /pid \d+/);
  }, 60_000);

  it.skipIf(noPidNamespaces !== null)(
    "two pid namespaces (two containers on one volume, both pid 1): the second is refused",
    async () => {
      await expectOneWriter(inPidNamespace, inPidNamespace, /pid 1 \(in another pid namespace/);
    },
    60_000,
  );

  it.skipIf(noPidNamespaces !== null)(
    "a container and the host, either way round: the second is refused",
    async () => {
      await expectOneWriter(inPidNamespace, asProcess, /pid 1 \(in another pid namespace/);
      await expectOneWriter(asProcess, inPidNamespace, /pid \d+ \(in another pid namespace/);
    },
    60_000,
  );
});

describe("a killed holder", () => {
  for (const [name, start] of [
    ["process (SIGKILL)", asProcess],
    ["worker thread (terminated)", asThread],
    ["process in another pid namespace (SIGKILL)", inPidNamespace],
  ] as const) {
    it.skipIf(start === inPidNamespace && noPidNamespaces !== null)(
      `${name} frees the store for the next open at once`,
      async () => {
        const dir = freshDir();
        const holder = start({ dir });
        expect(await holder.next()).toMatchObject({ event: "opened" });
        expect(await holder.ask("append h1")).toEqual({ event: "appended", id: "h1" });
        holder.kill();
        await holder.exited;
        // No waiting for anything to expire: the first open after the holder's death succeeds. (Deno closes a
        // terminated worker's sockets just after terminate() resolves: a thread gets a few tries, by count.)
        let state: Awaited<ReturnType<FileBackend["load"]>> | null = null;
        for (let attempt = 0; state === null; attempt++) {
          const next = new FileBackend(dir);
          try {
            state = await next.load();
          } catch (error) {
            if (start !== asThread || RUNTIME !== "deno" || attempt >= 100 || (error as { code?: string }).code !== "STORE_LOCKED") throw error;
            await new Promise((resolve) => setTimeout(resolve, 10));
          } finally {
            await next.close();
          }
        }
        expect(state.entries.map((e) => e.id)).toEqual(["h1"]);
      },
      60_000,
    );
  }
});

/** Runs the hammer fixture in `processes` processes (the fourth in its own pid namespace when possible); returns all output lines. */
async function hammerFolder(dir: string, processes: number, extra: Record<string, unknown> = {}): Promise<string[]> {
  const runs: Promise<string>[] = [];
  for (let p = 0; p < processes; p++) {
    const config = JSON.stringify({ dir, writer: `p${p}`, threads: 2, rounds: 5, seed: 1000 + p, ...extra });
    const command = [...(p === 3 ? NEW_PID_NAMESPACE : []), ...runtimeCommand(hammer), config];
    runs.push(
      new Promise((resolve, reject) => {
        const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`hammer p${p} exited ${String(code)}: ${err}`))));
      }),
    );
  }
  return (await Promise.all(runs)).flatMap((out) => out.trim().split("\n"));
}

async function expectEveryAckStoredOnce(dir: string, lines: string[], processes: number): Promise<void> {
  expect(lines.filter((l) => l.startsWith("error"))).toEqual([]);
  expect(lines.filter((l) => l === "done")).toHaveLength(processes);
  const acked = lines.filter((l) => l.startsWith("ack ")).map((l) => l.slice(4));
  expect(acked).toHaveLength(processes * 3 * 5);
  const reader = new FileBackend(dir, { readOnly: true });
  const state = await reader.load();
  await reader.close();
  const stored = state.entries.map((e) => e.content).sort();
  expect(stored).toEqual([...acked].sort());
}

describe("many writers", () => {
  it("threads and processes (and pid namespaces) hammering one folder: every acknowledged add is stored exactly once, nothing else", async () => {
    const dir = freshDir();
    const processes = noPidNamespaces === null ? 4 : 3;
    await expectEveryAckStoredOnce(dir, await hammerFolder(dir, processes), processes);
  }, 240_000);

  it("the same with leased lock points (a file system without sockets)", async () => {
    const dir = freshDir();
    await expectEveryAckStoredOnce(dir, await hammerFolder(dir, 3, { noSockets: true }), 3);
  }, 240_000);
});
