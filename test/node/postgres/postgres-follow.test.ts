// Read-only stores following a writer on PostgreSQL: `refresh()` and `follow` read what writers committed since, from
// the per-user versions and event logs (docs/postgres.md, "Consistency").

import { describe, it, expect } from "vitest";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "../../../src/index.ts";
import { PostgresBackend } from "../../../src/persistence/postgres/postgres-backend.ts";
import { clusterPerFile } from "./cluster.ts";
import { tsFixtureCommand } from "../helpers/script-runner.ts";

const db = clusterPerFile("f");
const { freshSchema } = db;

const USERS = ["ann", "bob", "cy", "dee", "eve"];

function reader(schema: string, follow = false): Promise<MemoryStore> {
  return MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema, readOnly: true }), readOnly: true, follow });
}

/** Every entry of every user (any status), as plain JSON, by user. */
async function everything(mem: MemoryStore): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const user of USERS) out[user] = JSON.parse(JSON.stringify(await mem.list(user, { status: "all" }))) as unknown;
  return out;
}

async function ids(mem: MemoryStore): Promise<Set<string>> {
  const out = new Set<string>();
  for (const user of USERS) for (const e of await mem.list(user, { status: "all" })) out.add(e.id);
  return out;
}

const WRITER = fileURLToPath(new URL("./fixtures/pg-mixed-writer.ts", import.meta.url));

/** Starts the mixed writer; `lines` fills as it prints, `done` resolves when it exited cleanly. */
function startWriter(args: string[]): { lines: string[]; done: Promise<void> } {
  const [cmd, ...rest] = tsFixtureCommand(WRITER);
  const child = spawn(cmd!, [...rest, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let buffered = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<void>((resolve, reject) =>
    child.once("close", (code) => (code === 0 && lines.at(-1) === "done" ? resolve() : reject(new Error(`writer exited with ${String(code)}: ${stderr}`)))),
  );
  return { lines, done };
}

describe("a read-only store following a PostgreSQL writer", () => {
  it("sees every write a writer process acknowledged before each refresh, and ends equal to a fresh read", async () => {
    const schema = freshSchema();
    // Opened before the writer created anything: an empty store, which picks the tables up once they exist.
    const follower = await reader(schema);
    const following = await reader(schema, true);
    expect(await follower.refresh()).toBe(false);
    const writer = startWriter([db.cluster.url, schema, "400", "18", "7"]);
    let finished = false;
    void writer.done.then(() => (finished = true)).catch(() => (finished = true));
    let checks = 0;
    let changed = 0;
    while (!finished) {
      const acked = writer.lines.filter((l) => l.startsWith("ack ")).map((l) => l.slice(4));
      if (await follower.refresh()) changed++;
      const seen = await ids(follower);
      for (const id of acked) expect(seen.has(id), `acknowledged ${id} after refresh ${checks}`).toBe(true);
      // With follow, any call first catches up: a list sees the acknowledged entries of its user.
      const user = USERS[checks % USERS.length]!;
      const listed = new Set((await following.list(user, { status: "all" })).map((e) => e.id));
      const mine = new Set((await follower.list(user, { status: "all" })).map((e) => e.id));
      for (const id of mine) if (acked.includes(id)) expect(listed.has(id)).toBe(true);
      checks++;
      await new Promise((r) => setTimeout(r, 3));
    }
    await writer.done;
    expect(checks).toBeGreaterThan(3);
    expect(changed).toBeGreaterThan(1);
    await follower.refresh();
    const fresh = await reader(schema);
    expect(await everything(follower)).toEqual(await everything(fresh));
    expect(await everything(following)).toEqual(await everything(fresh));
    const { total, active, deleted, superseded } = await fresh.stats();
    expect(await follower.stats()).toMatchObject({ total, active, deleted, superseded });
    await fresh.close();
    await follower.close();
    await following.close();
  }, 180_000);

  it("a reader behind a trimmed event log reads the user whole again; nothing written means nothing to apply", async () => {
    const schema = freshSchema();
    const writer = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema, keepEvents: 2 }) });
    await writer.add("ann", "I live in Paris");
    await writer.add("bob", "I love tea");
    const follower = await reader(schema);
    expect(await follower.refresh()).toBe(false);
    for (let i = 0; i < 8; i++) await writer.add("ann", `fact ${i}: I love ${["jazz", "chess", "rain", "dogs"][i % 4]}`);
    await writer.add("ann", "I live in Rome");
    await writer.forget("bob", { all: true });
    await writer.close(); // compacts: trims each written user's log to its newest 2 events
    const { rows } = await db.pool.query(`SELECT user_id, version, trimmed_to FROM "${schema}".users ORDER BY user_id`);
    expect(Number(rows[0].trimmed_to)).toBeGreaterThan(2); // ann's log no longer reaches the version the reader has
    expect(await follower.refresh()).toBe(true);
    const fresh = await reader(schema);
    expect(await everything(follower)).toEqual(await everything(fresh));
    expect((await follower.recall("ann", "where do I live")).map((h) => h.content)).toContain("I live in Rome");
    // A new writer taking over changes the meta row, not an entry: refresh finds nothing to apply.
    const next = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool: db.pool, schema }) });
    expect(await follower.refresh()).toBe(false);
    await next.add("cy", "I love chess");
    expect(await follower.refresh()).toBe(true);
    expect((await follower.list("cy")).map((e) => e.content)).toEqual(["I love chess"]);
    expect(await follower.refresh()).toBe(false);
    await next.close();
    await fresh.close();
    await follower.close();
  });
});
