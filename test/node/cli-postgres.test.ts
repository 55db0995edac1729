// The `moomem` bin on a real PostgreSQL server (--pg, MOOMEM_PG_URL): every command, `migrate` from several processes at once,
// export/import between a folder and PostgreSQL both ways, purge checked with SQL, and no password in anything printed.

import { spawn } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type pg from "pg";
import { FixedClock, MemoryStore } from "../../src/node.ts";
import type { AddSummary, ImportSummary, MemoryEntry, RecallHit, StoreStats } from "../../src/index.ts";
import { CLI_MAIN, ROOT, ensureBuilt } from "./helpers/built-package.ts";
import { jsonOf, runMoomem, runProcess, type CliResult } from "./helpers/run-cli.ts";
import { makeTempDir, removeDir } from "./helpers/store-files.ts";
import { PASSWORD_ROLE, startCluster, type TestCluster } from "./postgres/cluster.ts";
import { LATEST_SCHEMA_VERSION } from "../../src/postgres.ts";

// Each test spawns several processes; a busy machine makes that slow (a hang detector, as everywhere: vitest.config.ts).
const TEST_TIMEOUT_MS = 300_000;
/** The password role's password: percent-encoded in URLs, the decoded form is what the server checks. */
const PASSWORD = "Sup3r-Secret_pw%21";
const DECODED = decodeURIComponent(PASSWORD);

let cluster: TestCluster;
let pool: pg.Pool;
let temp = "";
let schemas = 0;

beforeAll(async () => {
  await ensureBuilt();
  temp = makeTempDir("cli-pg");
  cluster = await startCluster();
  pool = cluster.pool();
  await pool.query(`CREATE ROLE ${PASSWORD_ROLE} LOGIN PASSWORD '${DECODED}'`);
  await pool.query(`GRANT CREATE ON DATABASE postgres TO ${PASSWORD_ROLE}`);
}, 240_000);

afterAll(async () => {
  removeDir(temp);
  await cluster?.destroy();
});

function freshSchema(): string {
  return `cli${process.pid}_${++schemas}`;
}

/** `--pg <superuser url> --pg-schema <schema>`. */
function pgArgs(schema: string): string[] {
  return ["--pg", cluster.url, "--pg-schema", schema];
}

function expectOk(result: CliResult): CliResult {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return result;
}

/** Every row of every table of the schema, as text (whatever the column types). */
async function everyRow(schema: string): Promise<string[]> {
  const { rows: tables } = await pool.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = $1", [schema]);
  expect(tables.length).toBeGreaterThan(0);
  const out: string[] = [];
  for (const { tablename } of tables) {
    const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${tablename}" t`);
    for (const row of rows) out.push(row.row);
  }
  return out;
}

/** The entry lines of an export (the header, which names the export time, dropped), parsed. */
function entryLines(stdout: string): Array<Record<string, unknown>> {
  const lines = stdout.split("\n").filter((l) => l !== "");
  expect(JSON.parse(lines[0]!)).toHaveProperty("moomem_export");
  return lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("moomem CLI: choosing a PostgreSQL store", () => {
  it(
    "--pg with --dir, --pg-schema alone, a bad --pg value, a bad schema and migrate on a folder are usage errors that echo no connection string",
    async () => {
      const cases: Array<[string[], string]> = [
        [["--pg", cluster.url, "--dir", join(temp, "x"), "stats"], "--pg and --dir name two different stores"],
        [["--dir", join(temp, "x"), "--pg-schema", "s", "stats"], "--pg-schema names a schema of a PostgreSQL store"],
        [["--pg", "./memory-Sup3r", "list", "-u", "a"], "--pg needs a PostgreSQL connection string"],
        [["--pg", cluster.url, "--pg-schema", "bad-name;drop", "stats"], "--pg-schema must be a plain SQL identifier"],
        [["--dir", join(temp, "x"), "migrate"], "migrate is for a PostgreSQL store"],
        [["--pg", "", "stats"], "--pg needs a PostgreSQL connection string"],
      ];
      // A connection string where the command word belongs.
      cases.push([["postgres://app:Sup3r-pw@db/m", "stats"], 'unknown command "postgres://app:***@db/m"']);
      for (const [args, message] of cases) {
        const result = await runMoomem(args);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(message);
        expect(result.stderr).not.toContain("Sup3r");
        expect(result.stdout).toBe("");
      }
      // A flag beats the environment: --dir opens the folder although MOOMEM_PG_URL is set (to a server that is not there).
      const dir = join(temp, "flag-beats-env");
      const env = { MOOMEM_PG_URL: "postgres://nobody@127.0.0.1:1/none" };
      expectOk(await runMoomem(["--dir", dir, "add", "-u", "a", "I like tea"], { env }));
      expect(jsonOf<MemoryEntry[]>(await runMoomem(["--dir", dir, "--json", "list", "-u", "a"], { env })).map((e) => e.content)).toEqual(["I like tea"]);
      // A bad MOOMEM_PG_URL is named as such, and not echoed.
      const badUrl = await runMoomem(["list", "-u", "a"], { env: { MOOMEM_PG_URL: "memory-Sup3r" } });
      expect(badUrl.code).toBe(2);
      expect(badUrl.stderr).toContain("MOOMEM_PG_URL needs a PostgreSQL connection string");
      expect(badUrl.stderr).not.toContain("Sup3r");
      // A bad MOOMEM_PG_SCHEMA is named as such.
      const bad = await runMoomem(["stats"], { env: { MOOMEM_PG_URL: cluster.url, MOOMEM_PG_SCHEMA: "1abc" } });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("MOOMEM_PG_SCHEMA must be a plain SQL identifier");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "every command works on PostgreSQL, from --pg or MOOMEM_PG_URL; reading commands never take over as the writer",
    async () => {
      const schema = freshSchema();
      const pgs = pgArgs(schema);
      const env = { MOOMEM_PG_URL: cluster.url, MOOMEM_PG_SCHEMA: schema };
      // A reading command on a schema nobody created: an empty store, a notice, and nothing created.
      const empty = await runMoomem([...pgs, "list", "-u", "alice"]);
      expect(empty.code).toBe(0);
      expect(empty.stderr).toContain(`no store in postgres://postgres@127.0.0.1:${cluster.port}/postgres (schema "${schema}") yet`);
      expect((await pool.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rows).toEqual([]);

      const first = jsonOf<AddSummary>(await runMoomem([...pgs, "--json", "add", "-u", "alice", "I live in Beijing"]));
      expect(first).toMatchObject({ inserted: 1, superseded: 0 });
      const moved = jsonOf<AddSummary>(await runMoomem(["--json", "add", "-u", "alice", "I live in Shenzhen"], { env }));
      expect(moved).toMatchObject({ inserted: 1, superseded: 1 });
      expectOk(await runMoomem([...pgs, "add", "-u", "bob", "I live in Paris"]));

      const hits = jsonOf<RecallHit[]>(await runMoomem(["--json", "recall", "-u", "alice", "where do I live?"], { env }));
      expect(hits.map((h) => h.content)).toEqual(["I live in Shenzhen"]);
      const shenzhen = hits[0]!.id;
      const history = jsonOf<MemoryEntry[]>(await runMoomem([...pgs, "--json", "history", "-u", "alice", shenzhen]));
      expect(history.map((e) => [e.content, e.status])).toEqual([
        ["I live in Beijing", "superseded"],
        ["I live in Shenzhen", "active"],
      ]);
      expect(expectOk(await runMoomem([...pgs, "profile", "-u", "alice"])).stdout).toContain("I live in Shenzhen");

      // A reading command opens the store read-only: the writer epoch stays where the last writing command left it.
      const epoch = async (): Promise<string> => String((await pool.query(`SELECT writer_epoch FROM "${schema}".meta`)).rows[0].writer_epoch);
      const before = await epoch();
      for (const args of [["list", "-u", "alice"], ["stats"], ["export"], ["recall", "-u", "bob", "Paris"], ["history", "-u", "alice", shenzhen]]) {
        expectOk(await runMoomem([...pgs, ...args]));
      }
      expect(await epoch()).toBe(before);

      expect(jsonOf<{ forgotten: number }>(await runMoomem([...pgs, "--json", "forget", "-u", "alice", shenzhen])).forgotten).toBe(1);
      expectOk(await runMoomem([...pgs, "restore", "-u", "alice", shenzhen]));
      expectOk(await runMoomem([...pgs, "reembed"]));
      expectOk(await runMoomem([...pgs, "reextract", "-u", "alice"]));
      const listed = jsonOf<MemoryEntry[]>(await runMoomem([...pgs, "--json", "list", "-u", "alice"]));
      expect(listed.map((e) => [e.content, e.status])).toEqual([
        ["I live in Beijing", "superseded"],
        ["I live in Shenzhen", "active"],
      ]);
      const stats = jsonOf<StoreStats>(await runMoomem([...pgs, "--json", "stats"]));
      expect(stats).toMatchObject({ total: 3, active: 2, superseded: 1, users: 2 });
      expect(stats.bytesOnDisk).toBeGreaterThan(0);
      const text = expectOk(await runMoomem([...pgs, "stats"])).stdout;
      expect(text).toContain(`postgres://postgres@127.0.0.1:${cluster.port}/postgres (schema "${schema}")`);

      // The library sees what the CLI wrote.
      const { PostgresBackend } = await import("../../src/postgres.ts");
      const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool, schema, readOnly: true }), readOnly: true });
      expect((await mem.list("bob")).map((e) => e.content)).toEqual(["I live in Paris"]);
      await mem.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "six `add` processes at once on one schema, one user: every one stores its fact (many writers), each once, under its own id",
    async () => {
      const schema = freshSchema();
      expectOk(await runMoomem([...pgArgs(schema), "migrate"]));
      const facts = ["I like tea", "I play the cello", "My dog is called Rex", "I work in Lisbon", "I was born in 1990", "I speak Greek"];
      const runs = await Promise.all(facts.map((fact) => runMoomem([...pgArgs(schema), "--json", "add", "-u", "zoe", fact])));
      const stored: string[] = [];
      runs.forEach((run, i) => {
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toBe("");
        stored.push(facts[i]!);
      });
      expect(stored.length).toBeGreaterThan(0);
      const listed = jsonOf<MemoryEntry[]>(await runMoomem([...pgArgs(schema), "--json", "list", "-u", "zoe"]));
      expect(listed.map((e) => e.content).sort()).toEqual([...stored].sort());
      expect(new Set(listed.map((e) => e.id)).size).toBe(listed.length);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "moomem mcp --pg serves a PostgreSQL store: what `remember` gets is in the schema",
    async () => {
      const schema = freshSchema();
      const child = spawn("node", [CLI_MAIN, ...pgArgs(schema), "mcp", "--user", "alice"], { stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const waiters = new Map<number, (message: { result?: Record<string, unknown> }) => void>();
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        for (let nl = stdout.indexOf("\n"); nl >= 0; nl = stdout.indexOf("\n")) {
          const message = JSON.parse(stdout.slice(0, nl)) as { id: number; result?: Record<string, unknown> };
          stdout = stdout.slice(nl + 1);
          waiters.get(message.id)?.(message);
        }
      });
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      const request = (id: number, method: string, params: unknown): Promise<{ result?: Record<string, unknown> }> =>
        new Promise((resolve) => {
          waiters.set(id, resolve);
          child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
        });
      await request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "cli-pg-test", version: "1" } });
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
      const remembered = await request(2, "tools/call", { name: "remember", arguments: { content: "I live in Lisbon" } });
      expect(remembered.result?.["isError"]).not.toBe(true);
      child.stdin.end();
      expect(await exited).toBe(0);
      expect(stderr).toBe("");
      const { rows } = await pool.query<{ user_id: string; content: string }>(`SELECT user_id, content FROM "${schema}".entries`);
      expect(rows).toEqual([{ user_id: "alice", content: "I live in Lisbon" }]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "moomem migrate: six processes at once on a new schema apply each migration exactly once; run again, it applies nothing",
    async () => {
      const schema = freshSchema();
      // Hold the migration lock, so all six are inside migrate() waiting on it before any can go on.
      const holder = await pool.connect();
      let runs: Array<Promise<CliResult>>;
      try {
        await holder.query("BEGIN");
        await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`moomem:migrate:${schema}`]);
        runs = Array.from({ length: 6 }, () => runMoomem([...pgArgs(schema), "--json", "migrate"]));
        for (;;) {
          const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
          if (rows[0]!.n === 6) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await holder.query("COMMIT");
        holder.release();
      }
      const results = (await Promise.all(runs)).map((r) => jsonOf<{ applied: number[]; version: number; schema: string }>(r));
      const every = Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1);
      const applied = results.flatMap((r) => r.applied).sort((a, b) => a - b);
      expect(applied).toEqual(every);
      expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
      for (const r of results) expect(r).toMatchObject({ version: LATEST_SCHEMA_VERSION, schema });
      const { rows } = await pool.query<{ version: number }>(`SELECT version FROM "${schema}".migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(every);

      const again = expectOk(await runMoomem([...pgArgs(schema), "migrate"]));
      expect(again.stdout).toContain(`is current (schema version ${LATEST_SCHEMA_VERSION}); nothing to apply`);
      // The migrated schema is a working store.
      expectOk(await runMoomem([...pgArgs(schema), "add", "-u", "u", "I like tea"]));
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: export and import between a folder and PostgreSQL", () => {
  it(
    "folder → PostgreSQL → folder, through pipes: every entry, link, lifecycle field and vector comes back identical",
    async () => {
      const source = join(temp, "transfer-source");
      // A store with every kind of state: supersede chains, metadata, a forget, a restore, a purge, Chinese text.
      const clock = new FixedClock(1_700_000_000_000);
      const mem = await MemoryStore.open(source, { clock });
      await mem.add("alice", "I live in Beijing", { metadata: { source: "chat", n: 1 } });
      clock.advance(1000);
      await mem.add("alice", "I live in Shenzhen");
      clock.advance(1000);
      await mem.add("alice", "I am allergic to peanuts, never suggest peanut dishes");
      await mem.add("alice", "我对花生过敏，不要推荐花生做的菜");
      await mem.add("bob", "I like green tea", { metadata: { nested: { deep: [1, "two", null] } } });
      await mem.add("bob", "My sister is called Anna");
      await mem.add("carol", "I work at the harbour");
      const bobs = await mem.list("bob");
      await mem.forget("bob", { id: bobs[0]!.id });
      clock.advance(1000);
      await mem.forget("bob", { id: bobs[1]!.id });
      await mem.restore("bob", bobs[1]!.id);
      await mem.forget("carol", { all: true }, { purge: true });
      await mem.close();

      const original = expectOk(await runMoomem(["--dir", source, "export"])).stdout;
      const entries = entryLines(original);
      expect(entries.map((e) => e["status"]).sort()).toEqual(["active", "active", "active", "active", "deleted", "deleted", "superseded"]);
      expect(entries.some((e) => e["superseded_by"] !== null)).toBe(true);
      expect(entries.some((e) => e["status"] === "deleted" && e["content"] === "")).toBe(true);

      // moomem export --dir a | moomem import --pg … (a real shell pipe), then read it back from PostgreSQL.
      const schema = freshSchema();
      const node = JSON.stringify("node");
      const main = JSON.stringify(CLI_MAIN);
      const piped = await runProcess(
        "bash",
        ["-c", `set -o pipefail; ${node} ${main} --dir ${JSON.stringify(source)} export | ${node} ${main} --pg "$PG" --pg-schema ${schema} --json import -`],
        { env: { PG: cluster.url } },
      );
      expectOk(piped);
      expect(JSON.parse(piped.stdout) as ImportSummary).toMatchObject({ entries: 7, users: 3 });
      const fromPg = expectOk(await runMoomem([...pgArgs(schema), "export"])).stdout;
      expect(entryLines(fromPg)).toEqual(entries);

      // …and back: PostgreSQL → a new folder, through stdin.
      const back = join(temp, "transfer-back");
      expectOk(await runMoomem(["--dir", back, "import", "-"], { input: fromPg }));
      const roundTrip = expectOk(await runMoomem(["--dir", back, "export"])).stdout;
      expect(entryLines(roundTrip)).toEqual(entries);
      // The header names the same embedder and count each way.
      const header = (text: string): unknown => {
        const { exported_at: _at, ...rest } = JSON.parse(text.split("\n")[0]!) as Record<string, unknown>;
        return rest;
      };
      expect(header(fromPg)).toEqual(header(original));
      expect(header(roundTrip)).toEqual(header(original));

      // The same recall from each, and importing again into PostgreSQL adds nothing.
      for (const args of [["--dir", source], pgArgs(schema), ["--dir", back]]) {
        const hits = jsonOf<RecallHit[]>(await runMoomem([...args, "--json", "recall", "-u", "alice", "peanut allergy"]));
        expect(hits.map((h) => h.id)).toEqual(
          jsonOf<RecallHit[]>(await runMoomem(["--dir", source, "--json", "recall", "-u", "alice", "peanut allergy"])).map((h) => h.id),
        );
      }
      const again = jsonOf<ImportSummary>(await runMoomem([...pgArgs(schema), "--json", "import", "-"], { input: original }));
      expect(again).toMatchObject({ entries: 0 });
      expect(entryLines(expectOk(await runMoomem([...pgArgs(schema), "export"])).stdout)).toEqual(entries);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a bad line imports nothing into PostgreSQL",
    async () => {
      const schema = freshSchema();
      const source = join(temp, "bad-line-source");
      expectOk(await runMoomem(["--dir", source, "add", "-u", "a", "I like tea"]));
      const lines = expectOk(await runMoomem(["--dir", source, "export"])).stdout.split("\n");
      const broken = [lines[0], lines[1], '{"id":"broken"', ""].join("\n");
      const result = await runMoomem([...pgArgs(schema), "import", "--partial", "-"], { input: broken });
      expect(result.code).not.toBe(0);
      expect(jsonOf<MemoryEntry[]>(await runMoomem([...pgArgs(schema), "--json", "list", "-u", "a"]))).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: forget --purge on PostgreSQL", () => {
  it(
    "erases the content from the entries and the event log: no row of any table holds it afterwards",
    async () => {
      const schema = freshSchema();
      const pgs = pgArgs(schema);
      const secrets = ["Zanzibar-7731", "Quokka-5512", "Narwhal-9040"];
      expectOk(await runMoomem([...pgs, "add", "-u", "carol", `I live in ${secrets[0]}`]));
      expectOk(await runMoomem([...pgs, "add", "-u", "carol", `I live in ${secrets[2]}`])); // supersedes the first: a chain
      expectOk(await runMoomem([...pgs, "add", "-u", "carol", `I am allergic to ${secrets[1]}`]));
      expectOk(await runMoomem([...pgs, "add", "-u", "dave", "I live in Oslo"]));
      const [first] = jsonOf<MemoryEntry[]>(await runMoomem([...pgs, "--json", "list", "-u", "carol"]));
      expectOk(await runMoomem([...pgs, "forget", "-u", "carol", first!.id])); // a plain forget keeps the content (restore needs it)
      expect((await everyRow(schema)).some((row) => row.includes(secrets[0]!))).toBe(true);

      const purged = jsonOf<{ forgotten: number; purged: boolean }>(await runMoomem([...pgs, "--json", "forget", "-u", "carol", "--all", "--purge"]));
      expect(purged).toEqual({ forgotten: 3, purged: true });
      const rows = await everyRow(schema);
      for (const secret of [...secrets, "home_city", "allergy"]) {
        expect(rows.filter((row) => row.includes(secret) && !row.includes("Oslo"))).toEqual([]);
      }
      expect(rows.some((row) => row.includes("Oslo"))).toBe(true);
      // The event log keeps what happened (ids, seqs, statuses), never content.
      const { rows: events } = await pool.query<{ changes: string }>(`SELECT changes::text AS changes FROM "${schema}".events WHERE user_id = 'carol'`);
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) for (const secret of secrets) expect(e.changes).not.toContain(secret);
      // What is left is a tombstone per entry, which restore cannot bring back.
      const left = jsonOf<MemoryEntry[]>(await runMoomem([...pgs, "--json", "list", "-u", "carol"]));
      expect(left.map((e) => [e.status, e.content])).toEqual([
        ["deleted", ""],
        ["deleted", ""],
        ["deleted", ""],
      ]);
      expect(expectOk(await runMoomem([...pgs, "export", "-u", "carol"])).stdout).not.toMatch(/Zanzibar|Quokka|Narwhal/);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI: PostgreSQL credentials are never printed", () => {
  const url = (password: string, port = cluster.port): string => `postgres://${PASSWORD_ROLE}:${password}@127.0.0.1:${port}/postgres`;

  function expectNoSecret(result: CliResult): void {
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(DECODED);
      expect(text).not.toContain("Sup3r");
    }
  }

  it(
    "with the right password: add, stats, --json stats, recall, migrate and export print the location without it",
    async () => {
      const schema = freshSchema();
      const args = ["--pg", url(PASSWORD), "--pg-schema", schema];
      const runs = [
        await runMoomem([...args, "migrate"]),
        await runMoomem([...args, "add", "-u", "u", "I like tea"]),
        await runMoomem([...args, "--json", "add", "-u", "u", "I like coffee"]),
        await runMoomem([...args, "stats"]),
        await runMoomem([...args, "--json", "stats"]),
        await runMoomem([...args, "--json", "migrate"]),
        await runMoomem([...args, "recall", "-u", "u", "tea"]),
        await runMoomem([...args, "export"]),
        // From the environment, and with the password in PGPASSWORD instead of the URL.
        await runMoomem(["stats"], { env: { MOOMEM_PG_URL: url(PASSWORD), MOOMEM_PG_SCHEMA: schema } }),
        await runMoomem(["--pg", `postgres://${PASSWORD_ROLE}@127.0.0.1:${cluster.port}/postgres`, "--pg-schema", schema, "stats"], {
          env: { PGPASSWORD: DECODED },
        }),
      ];
      for (const run of runs) {
        expectOk(run);
        expectNoSecret(run);
      }
      expect(runs[3]!.stdout).toContain(`postgres://${PASSWORD_ROLE}@127.0.0.1:${cluster.port}/postgres (schema "${schema}")`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a wrong password, a refused connection and a key=value string with a wrong password fail without printing it, in text and --json",
    async () => {
      const cases = [
        ["--pg", url(`${PASSWORD}x`)],
        ["--pg", url(PASSWORD, 1)],
        ["--pg", `postgres://${PASSWORD_ROLE}@127.0.0.1:${cluster.port}/postgres?password=${PASSWORD}x`],
        ["--pg", `host=127.0.0.1 port=${cluster.port} user=${PASSWORD_ROLE} password=${DECODED}x dbname=postgres`],
      ];
      for (const pgFlag of cases) {
        for (const command of [["add", "-u", "u", "hi"], ["--json", "stats"], ["migrate"], ["export"]]) {
          const run = await runMoomem([...pgFlag, "--pg-schema", freshSchema(), ...command]);
          expect(run.code, run.stderr).toBe(1);
          expect(run.stderr).toMatch(/^moomem: IO_FAILURE: /);
          expectNoSecret(run);
        }
      }
      const viaEnv = await runMoomem(["list", "-u", "u"], { env: { MOOMEM_PG_URL: url(`${PASSWORD}x`) } });
      expect(viaEnv.code).toBe(1);
      expect(viaEnv.stderr).toContain("password authentication failed");
      expectNoSecret(viaEnv);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "the inspector (moomem ui) shows the location without the password",
    async () => {
      const schema = freshSchema();
      expectOk(await runMoomem(["--pg", url(PASSWORD), "--pg-schema", schema, "add", "-u", "u", "I like tea"]));
      const child = spawn("node", [CLI_MAIN, "--pg", url(PASSWORD), "--pg-schema", schema, "--json", "ui"], {
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      try {
        const first = await new Promise<string>((resolve, reject) => {
          child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
            stdout += chunk;
            if (stdout.includes("\n")) resolve(stdout.split("\n")[0]!);
          });
          void exited.then((code) => reject(new Error(`moomem ui exited with ${code}: ${stderr}`)));
        });
        const { url: link, dir } = JSON.parse(first) as { url: string; dir: string };
        expect(dir).toBe(`postgres://${PASSWORD_ROLE}@127.0.0.1:${cluster.port}/postgres (schema "${schema}")`);
        for (const path of ["api/meta", "api/stats", ""]) {
          const body = await (await fetch(`${link}${path}`)).text();
          expect(body).not.toContain("Sup3r");
          if (path === "api/meta") expect(body).toContain(`schema \\"${schema}\\"`);
        }
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
      expectNoSecret({ code: 0, stdout, stderr });
    },
    TEST_TIMEOUT_MS,
  );
});

describe("moomem CLI without the optional package pg", () => {
  const url = (password: string): string => `postgres://${PASSWORD_ROLE}:${password}@127.0.0.1:1/postgres`;

  it(
    "--pg fails with MISSING_DEPENDENCY naming npm i pg, in CLI words, without the password",
    async () => {
      const bare = makeTempDir("cli-pg-bare");
      try {
        cpSync(join(ROOT, "dist"), join(bare, "dist"), { recursive: true });
        cpSync(join(ROOT, "package.json"), join(bare, "package.json"));
        const run = await runProcess("node", [join(bare, "dist", "cli", "main.js"), "--pg", url(PASSWORD), "stats"], { cwd: bare });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/^moomem: MISSING_DEPENDENCY: /);
        expect(run.stderr).toContain("npm i pg@^8");
        expect(run.stderr).not.toContain("{ pool }");
        expect(run.stderr).not.toContain("Sup3r");
      } finally {
        removeDir(bare);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
