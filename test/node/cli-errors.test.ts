// The CLI's rewording of store errors: API advice ({ readOnly: true }, { reembed: true }) becomes CLI advice.

import { describe, it, expect } from "vitest";
import { MoomemError } from "../../src/node.ts";
import { forCli } from "../../src/cli/cli-errors.ts";

const API_HINT = /\{ *\w+: |readOnly|reembed: true/;

function reworded(code: ConstructorParameters<typeof MoomemError>[0], message: string, embed = false): MoomemError {
  const result = forCli(new MoomemError(code, message), { embed });
  expect(result).toBeInstanceOf(MoomemError);
  const error = result as MoomemError;
  expect(error.code).toBe(code);
  expect(error.message).not.toMatch(API_HINT);
  return error;
}

describe("forCli", () => {
  it("keeps what happened and replaces the API advice of a read-only file system", () => {
    const error = reworded(
      "IO_FAILURE",
      "cannot write /x/moomem/journal.1.jsonl (EROFS: read-only file system); the file system is read-only: open with { readOnly: true }",
    );
    expect(error.message).toBe(
      "cannot write /x/moomem/journal.1.jsonl (EROFS: read-only file system); the file system is read-only: reading commands (recall, list, history, profile, stats, export) still work",
    );
  });

  it("rewords a READ_ONLY store without losing its first clause", () => {
    const error = reworded("READ_ONLY", "the store at /x was opened with { readOnly: true }; open it without readOnly to write");
    expect(error.message).toBe("the store at /x was opened read-only; only add, forget, restore, import, reembed or reextract open the store for writing");
  });

  it("adds advice for the flag that was given, or not", () => {
    const message =
      "the store at /x holds vectors of embedder a (3 dims) but was opened with b (4 dims); open it with the same embedder, or with { reembed: true } to recompute every vector with the new one";
    expect(reworded("EMBEDDER_MISMATCH", message, true).message).toMatch(
      /^the store at \/x holds vectors of embedder a \(3 dims\) but was opened with b \(4 dims\); --embed selects another model .*`moomem --embed reembed`/,
    );
    expect(reworded("EMBEDDER_MISMATCH", message, false).message).toMatch(/; this command computes vectors, and without --embed .*`moomem reembed`/);
  });

  it("tells moomem ui --write (the one ui that takes the lock) what to do, and other commands the reading ones", () => {
    const message =
      "the store at /x is open for writing by pid 7 since 2026-01-01T00:00:00.000Z (lock /x/moomem/LOCK.3); close that writer, or open with { readOnly: true } to read while it runs";
    const what = "the store at /x is open for writing by pid 7 since 2026-01-01T00:00:00.000Z (lock /x/moomem/LOCK.3)";
    const ui = forCli(new MoomemError("STORE_LOCKED", message), { embed: false, command: "ui" }) as MoomemError;
    expect(ui.message).toBe(
      `${what}; moomem ui --write needs the writer lock: stop the process writing the store first, or run moomem ui without --write to inspect it read-only while it keeps writing`,
    );
    expect(reworded("STORE_LOCKED", message).message).toBe(
      `${what}; reading commands (recall, list, history, profile, stats, export) work while that process runs; stop it before add, forget, restore, import, reembed or reextract`,
    );
  });

  it("passes other errors through untouched", () => {
    const plain = new MoomemError("IO_FAILURE", "cannot write /x (EIO); check the disk");
    expect(forCli(plain, { embed: false })).toBe(plain);
    const usage = new MoomemError("INVALID_ARGUMENT", "recall: topK must be 1..100; got { topK: 0 }");
    expect(forCli(usage, { embed: false })).toBe(usage);
    const notOurs = new Error("boom");
    expect(forCli(notOurs, { embed: false })).toBe(notOurs);
  });

  it("on a PostgreSQL store: the install hint for pg without API options, `moomem migrate` for an old schema, and no writer-lock advice", () => {
    const missing = forCli(
      new MoomemError(
        "MISSING_DEPENDENCY",
        "PostgresBackend with a connectionString needs the optional package pg, which could not be loaded (Cannot find package 'pg'); install it next to moomem with: npm i pg@^8.11.0 — or pass your own { pool } or { client }",
      ),
      { embed: false, postgres: true },
    ) as MoomemError;
    expect(missing.code).toBe("MISSING_DEPENDENCY");
    expect(missing.message).not.toContain("{ pool }");
    expect(missing.message).toMatch(/; --pg needs the package pg next to moomem: npm i pg@\^8\.11\.0 /);
    const old = forCli(
      new MoomemError(
        "IO_FAILURE",
        'postgres://app@db/m (schema "moomem") is at schema version 1, this moomem needs 3; run the migrations (PostgresBackend setup(), or open once with migrate: true)',
      ),
      { embed: false, postgres: true },
    ) as MoomemError;
    expect(old.message).toBe(
      'postgres://app@db/m (schema "moomem") is at schema version 1, this moomem needs 3; run `moomem migrate` with the same --pg (a role that may create tables), then this command again',
    );
    const locked = forCli(
      new MoomemError("STORE_LOCKED", "pg was opened for writing by another process (or another store object) after this one; this append changed nothing"),
      { embed: false, postgres: true, command: "add" },
    ) as MoomemError;
    expect(locked.message).toContain("one writing process at a time, for now");
    expect(locked.message).not.toContain("reading commands");
    // The MCP SDK's install hint has no API advice: it passes unchanged.
    const mcp = new MoomemError(
      "MISSING_DEPENDENCY",
      "the MCP server needs @modelcontextprotocol/sdk; install it with npm i @modelcontextprotocol/sdk@^1.32.2",
    );
    expect(forCli(mcp, { embed: false })).toBe(mcp);
  });
});
