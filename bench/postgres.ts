// PostgreSQL against the file store, on a throwaway local cluster (as the tests start one): loading one user of 1,000
// entries with `loadUser`, opening a store then answering its first recall, at 1k and 10k entries; and a writable
// open of a large store (default 100,000 entries over 1,000 users) with per-user loading against reading everything;
// and N processes adding at once (offline pipeline), 1 against 4 (several app servers writing one store).
//
// Run: npx tsx bench/postgres.ts [sizes, e.g. 1000,10000, or none] [runs, default 7] [large store, e.g. 100000x1000, or none]
//        [processes, e.g. 1,4, or none] [adds per process, default 400] [--durable] [--prepare]
// Needs the PostgreSQL server binaries (Debian: apt-get install postgresql; or MOOMEM_PG_BIN). As root, the server
// runs as `nobody`. The cluster runs with fsync=off as the tests' does (test/node/postgres/cluster.ts), or with
// `--durable` with PostgreSQL's durable defaults (fsync on, synchronous_commit on: each commit waits for the disk),
// what a deployment runs. `--prepare`: the backends send named prepared statements (`prepareStatements: true`).
// Prints medians (p50) of `runs` runs; each open is a new store object, so nothing is cached in the process.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EntryRecord } from "../src/types.ts";
import { FileBackend } from "../src/persistence/file/file-backend.ts";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { MemoryStore } from "../src/node.ts";
import { PostgresBackend } from "../src/postgres.ts";
import type { PersistenceBackend } from "../src/persistence/backend.ts";
import { startCluster } from "../test/node/postgres/cluster.ts";

const FLAGS = new Set<string>(process.argv.slice(2).filter((a) => a === "--durable" || a === "--prepare"));
const ARGS = process.argv.slice(2).filter((a) => !FLAGS.has(a));
const SIZES = (ARGS[0] ?? "1000,10000").split(",").map(Number);
const RUNS = Number(ARGS[1] ?? 7);
const LARGE = ARGS[2] ?? "100000x1000";
const PROCESSES = (ARGS[3] ?? "1,4").split(",").map(Number);
const ADDS = Number(ARGS[4] ?? 400);
const DURABLE = FLAGS.has("--durable");
const PREPARE = FLAGS.has("--prepare");
/** Users the open/recall stores spread their entries over (so a user holds n / USERS entries). */
const USERS = 100;
const embedder = new HashingEmbedder();
const identity = { id: embedder.id, dim: embedder.dim };
const VOCAB = ["coffee", "peanuts", "Berlin", "nurse", "violin", "daughter", "hiking", "vegetarian", "Tuesday", "allergic", "tea", "Shanghai", "火锅", "喜欢"];

function text(i: number): string {
  const words: string[] = [];
  let x = (i * 2654435761) >>> 0;
  for (let k = 0; k < 14; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(VOCAB[(x >>> 8) % VOCAB.length]!);
  }
  return `fact ${i}: ${words.join(" ")}`;
}

async function makeEntries(from: number, count: number, user: (i: number) => string): Promise<EntryRecord[]> {
  const texts = Array.from({ length: count }, (_, i) => text(from + i));
  const vectors = await embedder.embed(texts);
  const now = Date.now();
  return texts.map((content, i) => ({
    id: `bench-${from + i}`,
    userId: user(from + i),
    content,
    kind: "fact",
    status: "active",
    createdAt: now,
    updatedAt: now,
    seq: from + i + 1,
    metadata: {},
    lifecycle: { extractor: "raw" },
    embedding: vectors[i]!,
  }));
}

/** Writes `n` entries through a backend (500 per batch), then records the embedder: what a store of that size holds. */
async function fill(backend: FileBackend | PostgresBackend, n: number, user: (i: number) => string): Promise<void> {
  await backend.load();
  const all: EntryRecord[] = [];
  for (let from = 0; from < n; from += 500) {
    const entries = await makeEntries(from, Math.min(500, n - from), user);
    await backend.append([{ entries }]);
    all.push(...entries);
  }
  await backend.compact({ embedder: identity, count: all.length, entries: all });
  await backend.close();
}

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

/**
 * CPU the cluster's server processes used so far (ms): the postmaster, its live children, and the children it reaped
 * (a backend whose connection closed), from /proc (Linux). Differences of two calls are what a section cost the server.
 */
function serverCpuMs(dataDir: string): number {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const fields = (pid: number | string): string[] =>
    readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ");
  const own = fields(postmaster);
  // After the ")" of the name: state is field 0, ppid 1, utime 11, stime 12, cutime 13, cstime 14.
  let total = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * tick;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const f = fields(pid);
      if (Number(f[1]) === postmaster) total += (Number(f[11]) + Number(f[12])) * tick;
    } catch {
      // The process ended meanwhile: its time is in the postmaster's reaped-children total now.
    }
  }
  return total;
}

/** The postmaster's live child processes (its backends and helpers). */
function serverChildren(dataDir: string): number {
  const postmaster = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0];
  let n = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (
        readFileSync(`/proc/${pid}/stat`, "utf8")
          .replace(/^.*\) /, "")
          .split(" ")[1] === postmaster
      )
        n++;
    } catch {
      // Ended meanwhile.
    }
  }
  return n;
}

/**
 * Waits (up to 10 s) until the backends of connections closed since `before` was counted are gone: an exited backend
 * the postmaster has not reaped yet is in neither its live children nor its reaped total, so its CPU would be missed.
 */
async function backendsGone(dataDir: string, before: number): Promise<void> {
  for (let waited = 0; waited < 10_000 && serverChildren(dataDir) > before; waited += 20) await new Promise((r) => setTimeout(r, 20));
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

// A child of section 5: one process adding for its own users until done, then printing what it did.
if (process.argv[2] === "--adder") {
  const [url, schema, id, count, prepare] = process.argv.slice(3) as [string, string, string, string, string];
  // Every statement the driver sends (pool.query goes through a client's query too), to report statements per add.
  let statements = 0;
  const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: unknown, ...args: unknown[]) {
    statements++;
    return clientQuery.apply(this, args);
  };
  const adderPool = new pg.Pool({ connectionString: url, max: 4 });
  adderPool.on("error", () => undefined);
  const mem = await MemoryStore.open("pg", {
    embedder: new HashingEmbedder(),
    backend: new PostgresBackend({ pool: adderPool, schema, prepareStatements: prepare === "prepare" }),
  });
  const n = Number(count);
  let next = 0;
  const before = statements;
  const started = Date.now();
  const cpu = process.cpuUsage();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++)
      await mem.add(`server-${id}-user-${i % 20}`, `${text(Number(id) * 100_000 + i)}; I like ${VOCAB[i % VOCAB.length]!}`);
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ started, ended: Date.now(), adds: n, cpuMs: (used.user + used.system) / 1000, statements: statements - before }));
  await mem.close();
  await adderPool.end();
  process.exit(0);
}

const cluster = await startCluster({ durable: DURABLE });
const pool = cluster.pool(4);
console.log(
  `cluster: ${DURABLE ? "durable (fsync on, synchronous_commit on)" : "fsync=off"}; statements ${PREPARE ? "prepared (prepareStatements)" : "unnamed"}; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
const folders: string[] = [];
try {
  // 1. loadUser of one user holding 1,000 entries, among 9,000 entries of 99 other users.
  const big = "user-big";
  await fill(new PostgresBackend({ pool, schema: "load_user" }), 10_000, (i) => (i % 10 === 0 ? big : `user-${i % 99}`));
  const reader = new PostgresBackend({ pool, schema: "load_user", readOnly: true });
  await reader.readUser(big); // connects; not counted
  const loads: number[] = [];
  for (let r = 0; r < Math.max(RUNS, 15); r++) {
    loads.push(
      await timed(async () => {
        const entries = await reader.loadUser(big);
        if (entries.length !== 1000) throw new Error(`loadUser gave ${entries.length} entries, not 1000`);
      }),
    );
  }
  await reader.close();
  console.log(`loadUser, one user of 1,000 entries (10,000 in the schema): p50 ${ms(p50(loads))} over ${loads.length} runs`);

  // 2. Open + first recall, and recall once open, file store vs PostgreSQL.
  console.log("");
  console.log("| entries | store | open + first recall (p50) | recall once open (p50) |");
  console.log("|---:|---|---:|---:|");
  for (const n of SIZES.filter((size) => Number.isFinite(size))) {
    const folder = mkdtempSync(join(tmpdir(), "moomem-bench-pg-"));
    folders.push(folder);
    const schema = `open_${n}`;
    const user = (i: number): string => `user-${i % USERS}`;
    await fill(new FileBackend(folder, { sync: "none" }), n, user);
    await fill(new PostgresBackend({ pool, schema }), n, user);
    const stores: Array<[string, () => Promise<MemoryStore>]> = [
      ["files", () => MemoryStore.open(folder, { embedder, readOnly: true })],
      ["PostgreSQL", () => MemoryStore.open("pg", { embedder, readOnly: true, backend: new PostgresBackend({ pool, schema, readOnly: true }) })],
      // Writable: users loaded when asked, and before each call one lookup of the user's version (many writers).
      ["PostgreSQL, writable (version check per call)", () => MemoryStore.open("pg", { embedder, backend: new PostgresBackend({ pool, schema }) })],
    ];
    for (const [name, open] of stores) {
      const firsts: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        let store: MemoryStore | undefined;
        firsts.push(
          await timed(async () => {
            store = await open();
            const hits = await store.recall("user-7", "coffee allergic Berlin", { topK: 5 });
            if (hits.length === 0) throw new Error("no hits");
          }),
        );
        await store!.close();
      }
      const store = await open();
      // Every user loaded first (a writable store loads users when asked): what is timed is recall on a loaded user.
      for (let u = 0; u < USERS; u++) await store.recall(`user-${u}`, "warm up", { topK: 5 });
      const recalls: number[] = [];
      for (let q = 0; q < 200; q++) recalls.push(await timed(async () => void (await store.recall(`user-${q % USERS}`, text(q * 31), { topK: 5 }))));
      await store.close();
      console.log(`| ${n.toLocaleString("en")} | ${name} | ${ms(p50(firsts))} | ${ms(p50(recalls))} |`);
    }
  }

  // 3. A writable open of a large store, then the first recall of a user nobody loaded yet: per-user loading (the
  // catalog is counted in PostgreSQL, the user's entries read on its first call) against reading every entry at open
  // (the same backend with its openCatalog hidden, so the store opens it with load(), as before per-user loading).
  if (LARGE !== "none") {
    const [total, users] = LARGE.split("x").map(Number) as [number, number];
    const schema = "large";
    const user = (i: number): string => `user-${i % users}`;
    let t = performance.now();
    await fill(new PostgresBackend({ pool, schema }), total, user);
    console.log(`\nfilled ${total.toLocaleString("en")} entries over ${users.toLocaleString("en")} users in ${ms(performance.now() - t)}`);
    console.log("");
    console.log(
      `| ${total.toLocaleString("en")} entries, ${users.toLocaleString("en")} users | open (p50) | first recall of a user not loaded (p50) | heap after (MB) |`,
    );
    console.log("|---|---:|---:|---:|");
    const modes: Array<[string, () => PersistenceBackend, number | undefined]> = [
      [
        "every entry read at open (load)",
        () => {
          const backend = new PostgresBackend({ pool, schema });
          Object.defineProperty(backend, "openCatalog", { value: undefined });
          return backend;
        },
        undefined,
      ],
      ["per-user loading (openCatalog), maxLoadedUsers 100", () => new PostgresBackend({ pool, schema }), 100],
    ];
    for (const [name, make, maxLoadedUsers] of modes) {
      const opens: number[] = [];
      const firsts: number[] = [];
      let heap = 0;
      for (let r = 0; r < Math.min(RUNS, 5); r++) {
        t = performance.now();
        const store = await MemoryStore.open("pg", { embedder, backend: make(), ...(maxLoadedUsers === undefined ? {} : { maxLoadedUsers }) });
        opens.push(performance.now() - t);
        t = performance.now();
        const hits = await store.recall(user(r * 7 + 3), "coffee allergic Berlin", { topK: 5 });
        firsts.push(performance.now() - t);
        if (hits.length === 0) throw new Error("no hits");
        globalThis.gc?.();
        heap = process.memoryUsage().heapUsed / 1e6;
        await store.close();
      }
      console.log(`| ${name} | ${ms(p50(opens))} | ${ms(p50(firsts))} | ${heap.toFixed(0)} |`);
    }

    // 4. A read-only store following a writer on that store: refresh() when nothing was written, and after one add.
    const follower = await MemoryStore.open("pg", { embedder, readOnly: true, backend: new PostgresBackend({ pool, schema, readOnly: true }) });
    const writer = await MemoryStore.open("pg", { embedder, backend: new PostgresBackend({ pool, schema }), maxLoadedUsers: 10 });
    const idle: number[] = [];
    const after: number[] = [];
    for (let r = 0; r < 15; r++) {
      idle.push(await timed(async () => void (await follower.refresh())));
      await writer.add(user(r), `bench follow ${r}: I love hiking`);
      after.push(
        await timed(async () => {
          if (!(await follower.refresh())) throw new Error("refresh found nothing after an add");
        }),
      );
    }
    await writer.close();
    await follower.close();
    console.log(
      `\nread-only refresh(), ${users.toLocaleString("en")} users: nothing written p50 ${ms(p50(idle))}; after one add p50 ${ms(p50(after))} (15 runs)`,
    );
  }

  // 5. N processes adding at once, each for its own 20 users, 4 adds in flight each (the offline pipeline: extraction
  // and embedding in process, one transaction per group of adds). The rate is every add over the wall time from the
  // first process's start to the last one's end (opening and closing not counted).
  const counts = PROCESSES.filter((p) => Number.isFinite(p) && p > 0);
  if (counts.length > 0) {
    console.log("");
    console.log(
      `| processes adding at once | adds | wall time | adds/s | vs 1 process | client CPU per add | server CPU per add | adds per CPU-second | statements per add | load average after |`,
    );
    console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    const self = fileURLToPath(import.meta.url);
    let single = 0;
    for (const processes of counts) {
      const schema = `adders_${processes}`;
      const setup = await MemoryStore.open("pg", { embedder, backend: new PostgresBackend({ pool, schema }) });
      await setup.close();
      const childrenBefore = serverChildren(cluster.dataDir);
      const serverBefore = serverCpuMs(cluster.dataDir);
      const runs = await Promise.all(
        Array.from(
          { length: processes },
          (_, id) =>
            new Promise<{ started: number; ended: number; adds: number; cpuMs: number; statements: number }>((resolve, reject) => {
              const child = spawn(
                process.execPath,
                ["--import", "tsx", self, "--adder", cluster.url, schema, String(id), String(ADDS), PREPARE ? "prepare" : "unnamed"],
                {
                  stdio: ["ignore", "pipe", "inherit"],
                },
              );
              let out = "";
              child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
              child.once("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`adder exited ${code}`))));
            }),
        ),
      );
      await backendsGone(cluster.dataDir, childrenBefore);
      const wall = Math.max(...runs.map((r) => r.ended)) - Math.min(...runs.map((r) => r.started));
      const adds = runs.reduce((n, r) => n + r.adds, 0);
      const rate = (adds * 1000) / wall;
      if (processes === 1) single = rate;
      const server = (serverCpuMs(cluster.dataDir) - serverBefore) / adds;
      const cpu = runs.reduce((n, r) => n + r.cpuMs, 0) / adds;
      const statements = runs.reduce((n, r) => n + r.statements, 0) / adds;
      console.log(
        `| ${processes} | ${adds} | ${ms(wall)} | ${rate.toFixed(0)} | ${single === 0 ? "—" : `${(rate / single).toFixed(2)}×`} | ${ms(cpu)} | ${ms(server)} | ${(1000 / (cpu + server)).toFixed(0)} | ${statements.toFixed(2)} | ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} |`,
      );
    }
  }
} finally {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  await cluster.destroy();
}
