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
    const error = reworded("IO_FAILURE", "cannot write /x/moomem/journal.1.jsonl (EROFS: read-only file system); the file system is read-only: open with { readOnly: true }");
    expect(error.message).toBe(
      "cannot write /x/moomem/journal.1.jsonl (EROFS: read-only file system); the file system is read-only: reading commands (recall, list, history, profile, stats, export) still work",
    );
  });

  it("rewords a READ_ONLY store without losing its first clause", () => {
    const error = reworded("READ_ONLY", "the store at /x was opened with { readOnly: true }; open it without readOnly to write");
    expect(error.message).toBe("the store at /x was opened read-only; only add, forget, restore, import, reembed or reextract open the store for writing");
  });

  it("adds advice for the flag that was given, or not", () => {
    const message = "the store at /x holds vectors of embedder a (3 dims) but was opened with b (4 dims); open it with the same embedder, or with { reembed: true } to recompute every vector with the new one";
    expect(reworded("EMBEDDER_MISMATCH", message, true).message).toMatch(/^the store at \/x holds vectors of embedder a \(3 dims\) but was opened with b \(4 dims\); --embed selects another model .*`moomem --embed reembed`/);
    expect(reworded("EMBEDDER_MISMATCH", message, false).message).toMatch(/; this command computes vectors, and without --embed .*`moomem reembed`/);
  });

  it("passes other errors through untouched", () => {
    const plain = new MoomemError("IO_FAILURE", "cannot write /x (EIO); check the disk");
    expect(forCli(plain, { embed: false })).toBe(plain);
    const usage = new MoomemError("INVALID_ARGUMENT", "recall: topK must be 1..100; got { topK: 0 }");
    expect(forCli(usage, { embed: false })).toBe(usage);
    const notOurs = new Error("boom");
    expect(forCli(notOurs, { embed: false })).toBe(notOurs);
  });
});
