// PostgreSQL under faults, with real processes and a real server: the server stopping and restarting mid-run,
// a COMMIT whose answer is lost, and a writer process SIGKILLed in the middle of a transaction.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../../src/index.ts";
import { MoomemError, isMoomemError } from "../../../src/errors.ts";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { fromPgPool } from "../../../src/persistence/postgres/pg-adapter.ts";
import type { SqlClient } from "../../../src/persistence/postgres/sql-client.ts";
import { rejectsWith } from "../../helpers/scripted.ts";
import { seededRandom } from "../../helpers/seeded-random.ts";
import { clusterPerFile } from "./cluster.ts";
import { tsFixtureCommand } from "../helpers/script-runner.ts";

const db = clusterPerFile("f");
const { freshSchema } = db;

/** Contents of every entry of these users, as stored. */
async function contents(schema: string): Promise<string[]> {
  const { rows } = await db.pool.query(`SELECT content FROM "${schema}".entries ORDER BY seq`);
  return rows.map((r: { content: string }) => r.content);
}

describe("the server going away", () => {
  it("a call while the server is down fails with IO_FAILURE; after it is back the next call works and nothing failed was kept", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    await mem.add("u", "before the outage");
    await db.cluster.stop();
    try {
      const error = await rejectsWith(mem.add("u", "during the outage"), "IO_FAILURE");
      expect(error.message).toContain("check that the database is reachable");
      // Recall runs in process, on what the store holds: it still answers.
      expect((await mem.recall("u", "outage")).map((h) => h.content)).toEqual(["before the outage"]);
    } finally {
      await db.cluster.start();
    }
    await mem.add("u", "after the outage");
    expect((await mem.list("u")).map((e) => e.content).sort()).toEqual(["after the outage", "before the outage"]);
    await mem.close();
    expect((await contents(schema)).sort()).toEqual(["after the outage", "before the outage"]);
  });

  it("restarting mid-run: every add resolves or fails with IO_FAILURE; every acknowledged add is stored, and only a failed add that said so may be", async () => {
    const schema = freshSchema();
    const ownPool = db.cluster.pool(4);
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: ownPool, schema }) });
    const acked: string[] = [];
    const unknown: string[] = [];
    const failed: string[] = [];
    let n = 0;
    let restarted = false;
    const worker = async (): Promise<void> => {
      // Runs until well after the restart, so adds land before, during and after it.
      for (let afterRestart = 0; afterRestart < 10;) {
        const text = `restart fact ${n++}`;
        try {
          await mem.add(`u${n % 3}`, text);
          acked.push(text);
        } catch (error) {
          if (!isMoomemError(error, "IO_FAILURE")) throw error;
          (error.message.includes("may or may not have been stored") ? unknown : failed).push(text);
        }
        if (restarted) afterRestart++;
      }
    };
    const workers = [worker(), worker(), worker()];
    while (acked.length < 15) await new Promise((r) => setTimeout(r, 5));
    await db.cluster.stop();
    await new Promise((r) => setTimeout(r, 50));
    await db.cluster.start();
    restarted = true;
    await Promise.all(workers);
    expect(failed.length + unknown.length).toBeGreaterThan(0);
    await mem.close();
    const stored = new Set(await contents(schema));
    for (const text of acked) expect(stored.has(text)).toBe(true);
    for (const text of failed) expect(stored.has(text)).toBe(false);
    for (const text of stored) expect(acked.includes(text) || unknown.includes(text)).toBe(true);
    expect(stored.size).toBe((await contents(schema)).length); // each at most once
    await ownPool.end();
  }, 120_000);
});

describe("a COMMIT whose answer is lost", () => {
  /**
   * A client whose writes report a dropped connection after (or instead of) committing: a transaction, or a
   * write sent as one statement on its own (its own transaction: the backend's write of one user).
   */
  function lossy(mode: { next: "ok" | "lost-after-commit" | "lost-before-commit" | "lost-and-unreachable" }): SqlClient {
    const real = fromPgPool(db.pool);
    let unreachable = false;
    return {
      async query(text, params) {
        if (unreachable) throw new Error("connect ECONNREFUSED 127.0.0.1");
        const now = /INSERT INTO \S+\.entries\b/.test(text) ? mode.next : "ok";
        if (now === "ok") return real.query(text, params);
        mode.next = "ok";
        // Lost before: the connection died with the statement unsent or unfinished, so PostgreSQL did not commit it.
        if (now === "lost-before-commit") throw new Error("Connection terminated unexpectedly");
        await real.query(text, params);
        if (now === "lost-and-unreachable") unreachable = true;
        throw new Error("Connection terminated unexpectedly");
      },
      async transaction(fn) {
        const now = mode.next;
        mode.next = "ok";
        if (now === "lost-before-commit") {
          // The body runs, then the connection dies instead of committing: PostgreSQL rolls back.
          await real.transaction(async (tx) => {
            await fn(tx);
            throw new Error("Connection terminated unexpectedly");
          });
        }
        const result = await real.transaction(fn);
        if (now === "lost-after-commit") throw new Error("Connection terminated unexpectedly");
        if (now === "lost-and-unreachable") {
          unreachable = true;
          throw new Error("Connection terminated unexpectedly");
        }
        return result;
      },
    };
  }

  it("is looked up: a write that landed is acknowledged, one that did not is written again, once", async () => {
    const schema = freshSchema();
    const mode = { next: "ok" as "ok" | "lost-after-commit" | "lost-before-commit" | "lost-and-unreachable" };
    const backend = new PostgresBackend({ client: lossy(mode), schema });
    const mem = await MemoryStore.open("pg", { backend });
    mode.next = "lost-after-commit";
    await mem.add("u", "landed although the answer was lost");
    mode.next = "lost-before-commit";
    await mem.add("u", "rolled back, then written again");
    expect(await contents(schema)).toEqual(["landed although the answer was lost", "rolled back, then written again"]);
    expect(await backend.userVersion("u")).toBe(2); // one event each: nothing was written twice
    await mem.close();
  });

  it("when the database cannot be asked, the caller is told the write may or may not be stored", async () => {
    const schema = freshSchema();
    const mode = { next: "ok" as "ok" | "lost-after-commit" | "lost-before-commit" | "lost-and-unreachable" };
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ client: lossy(mode), schema }) });
    mode.next = "lost-and-unreachable";
    const error = await rejectsWith(mem.add("u", "fate unknown to the caller"), "IO_FAILURE");
    expect(error.message).toContain("may or may not have been stored");
    expect(error).toBeInstanceOf(MoomemError);
    expect(await contents(schema)).toEqual(["fate unknown to the caller"]); // it did land: reopening shows it
  });
});

describe("a writer process killed with SIGKILL", () => {
  const WRITER = fileURLToPath(new URL("./fixtures/pg-writer.ts", import.meta.url));
  // The writer must be the process that gets the signal (tsFixtureCommand: not the tsx launcher).
  const command = (): string[] => tsFixtureCommand(WRITER);

  /** Starts a writer; resolves once `ready(lines)` says so, then SIGKILLs it and resolves to every line it printed. */
  function runUntil(args: string[], ready: (lines: string[]) => boolean, extraDelayMs: number): Promise<string[]> {
    const [cmd, ...rest] = command();
    const child = spawn(cmd!, [...rest, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    let buffered = "";
    let stderr = "";
    let killing = false;
    return new Promise((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        lines.push(...parts);
        if (!killing && ready(lines)) {
          killing = true;
          setTimeout(() => child.kill("SIGKILL"), extraDelayMs);
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.once("close", (code, signal) => {
        if (signal === "SIGKILL") resolve(lines);
        else reject(new Error(`writer ended by itself (exit ${String(code)}, signal ${String(signal)}) after ${JSON.stringify(lines.slice(-3))}: ${stderr}`));
      });
    });
  }

  it("in the middle of a transaction (rows written, no COMMIT): nothing of it is kept, the locks are freed, acknowledged adds stay", async () => {
    const schema = freshSchema();
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    await mem.add("w1", "acknowledged before");
    await mem.close();
    const lines = await runUntil([db.cluster.url, schema, "hang", "1"], (l) => l.some((x) => x.startsWith("in-tx")), 0);
    expect(lines).toContain("in-tx 1");
    // The next process writes the same user (its lock, and the meta row every write updates, would wait forever if the dead transaction held them).
    const next = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    await next.add("w1", "written by the next process");
    expect((await next.list("w1")).map((e) => e.content).sort()).toEqual(["acknowledged before", "written by the next process"]);
    await next.close();
    expect(await contents(schema)).toEqual(["acknowledged before", "written by the next process"]);
  }, 120_000);

  it("at random moments under load: every acknowledged add is there exactly once, nothing else", async () => {
    const schema = freshSchema();
    const random = seededRandom(Number(process.env["MOOMEM_SIGKILL_SEED"] ?? 18));
    const acked = new Set<number>();
    let first = 0;
    for (let round = 0; round < 3; round++) {
      const start = first;
      const lines = await runUntil(
        [db.cluster.url, schema, "loop", String(start)],
        (l) => l.filter((x) => x.startsWith("ack ")).length >= 10,
        Math.floor(random() * 40),
      );
      const acks = lines.filter((x) => x.startsWith("ack ")).map((x) => Number(x.slice(4)));
      for (const n of acks) acked.add(n);
      first = start + 10_000;
      const stored = await contents(schema);
      const numbers = stored.map((c) => Number(/^pg fact (\d+)$/.exec(c)?.[1] ?? NaN));
      expect(numbers.every((x) => Number.isInteger(x))).toBe(true);
      expect(new Set(numbers).size).toBe(numbers.length); // no add stored twice
      for (const n of acked) expect(numbers).toContain(n);
      // Nothing but adds this writer issued: at most 4 in flight past the last ack of each round.
      for (const n of numbers) expect(n % 10_000).toBeLessThan(Math.max(...acks.filter((a) => a >= start && a < first).map((a) => a % 10_000)) + 5);
    }
    const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    expect((await mem.stats()).total).toBe((await contents(schema)).length);
    await mem.close();
  }, 180_000);
});
