// The built `moomem/postgres` entry as users import it: without `pg` installed it still loads, and a connection
// string says what to install; with a pool from the real `pg` it stores through the package entry points.

import { execFile } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ROOT, ensureBuilt } from "../helpers/built-package.ts";
import { makeTempDir, removeDir } from "../helpers/store-files.ts";
import { startCluster, type TestCluster } from "./cluster.ts";

let bare = "";
let cluster: TestCluster;

/** Runs an ES module snippet with node in `cwd`. */
function runNode(code: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("node", ["--input-type=module", "-e", code], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  await ensureBuilt();
  bare = makeTempDir("pg-bare");
  cpSync(join(ROOT, "dist"), join(bare, "dist"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(bare, "package.json"));
  cluster = await startCluster();
}, 240_000);

afterAll(async () => {
  removeDir(bare);
  await cluster?.destroy();
});

describe("moomem/postgres, built", () => {
  it("loads without pg installed; a connection string rejects with MISSING_DEPENDENCY naming the package, and no password", async () => {
    const run = await runNode(
      `
      const { PostgresBackend } = await import("./dist/postgres.js");
      const { MemoryStore } = await import("./dist/index.js");
      const backend = new PostgresBackend({ connectionString: "postgres://app:hunter2-secret@127.0.0.1:1/db" });
      console.log(backend.location);
      try { await MemoryStore.open("pg", { backend }); console.log("opened?!"); }
      catch (e) { console.log(e.code); console.log(e.message); }`,
      bare,
    );
    expect(run.stderr).toBe("");
    const [location, code, message] = run.stdout.trim().split("\n");
    expect(location).toBe('postgres://app@127.0.0.1:1/db (schema "moomem")');
    expect(code).toBe("MISSING_DEPENDENCY");
    expect(message).toContain("npm i pg@");
    expect(run.stdout).not.toContain("hunter2");
  });

  it("stores and recalls through the package's own entry points with the real pg", async () => {
    const run = await runNode(
      `
      import pg from "pg";
      import { MemoryStore } from "moomem";
      import { PostgresBackend } from "moomem/postgres";
      const pool = new pg.Pool({ connectionString: ${JSON.stringify(cluster.url)} });
      pool.on("error", () => {});
      const mem = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool, schema: "pkg" }) });
      await mem.add("u", "I like oolong tea");
      await mem.close();
      const again = await MemoryStore.open("pg", { backend: new PostgresBackend({ pool, schema: "pkg" }) });
      console.log((await again.recall("u", "tea")).map((h) => h.content).join("|"));
      await again.close();
      await pool.end();`,
      ROOT,
    );
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("I like oolong tea");
  });
});
