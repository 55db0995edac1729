// A damaged last journal record (newline intact) is cut as a torn tail: stats() and the CLI say so, naming the lost write.

import { cpSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { MemoryStore } from "../../src/node.ts";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { runCli } from "../../src/cli/run.ts";
import type { CliIo } from "../../src/cli/io.ts";
import { lastLineStart, makeTempDir, removeDir } from "./helpers/store-files.ts";

let root: string;
let counter = 0;
/** A store whose journal's last record (user-2's add) has one damaged byte; and what that add was. */
let damaged: string;
let lost: { id: string; seq: number };
let journalName: string;
let lineNumber: number;
let cutBytes: number;

function freshDir(): string {
  return join(root, `s${++counter}`);
}

beforeAll(async () => {
  root = makeTempDir("torn-tails");
  const dir = freshDir();
  const mem = await MemoryStore.open(dir, { backend: new FileBackend(dir, { compactAfterBytes: 1 << 30 }) });
  await mem.add("user-1", "I live in Beijing");
  const summary = await mem.add("user-2", "I work at a bakery in Shenzhen");
  lost = { id: summary.facts[0]!.id!, seq: 0 };
  // What a crash leaves (the writer still runs: its lock files stay behind, as a dead writer's would be dead).
  damaged = freshDir();
  cpSync(dir, damaged, { recursive: true, filter: (source) => !/[\\/]LOCK(\.|$)/.test(source) });
  await mem.close();
  const names = readdirSync(join(damaged, "moomem")).filter((n) => /^journal\.\d+\.jsonl$/.test(n));
  journalName = names[0]!;
  const path = join(damaged, "moomem", journalName);
  const bytes = readFileSync(path);
  const start = lastLineStart(bytes);
  lineNumber = bytes.subarray(0, start).toString("utf8").split("\n").length;
  cutBytes = bytes.length - start;
  const line = bytes.subarray(start).toString("utf8");
  lost.seq = Number(/"seq":(\d+)/.exec(line)![1]);
  // One flipped bit inside the content: the line still ends in its newline, its CRC no longer matches.
  const at = start + line.indexOf("bakery");
  bytes[at] = bytes[at]! ^ 0x01;
  writeFileSync(path, bytes);
});
afterAll(() => {
  removeDir(root);
});

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = "";
  stdout.resume();
  stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const io: CliIo = { stdout, stderr, stdin: new PassThrough(), env: {} };
  const code = await runCli(args, io);
  return { code, stderr: err };
}

describe("a damaged last journal record", () => {
  it("is cut off as a torn tail, and stats() names the write that was lost", async () => {
    for (const readOnly of [true, false]) {
      const dir = freshDir();
      cpSync(damaged, dir, { recursive: true });
      const mem = await MemoryStore.open(dir, { readOnly });
      const stats = await mem.stats();
      expect(stats.truncatedRecovered).toBe(1);
      expect(stats.tornTails).toEqual([
        {
          file: journalName,
          line: lineNumber,
          bytes: cutBytes,
          reason: expect.stringMatching(/^CRC mismatch \(stored \d+, computed \d+\)$/) as unknown,
          writtenAt: expect.any(Number) as unknown,
          entries: [{ id: lost.id, userId: "user-2", seq: lost.seq }],
        },
      ]);
      expect(Math.abs(stats.tornTails[0]!.writtenAt! - Date.now())).toBeLessThan(3_600_000);
      expect((await mem.list("user-2")).map((e) => e.content)).toEqual([]);
      expect((await mem.list("user-1")).map((e) => e.content)).toEqual(["I live in Beijing"]);
      await mem.close();
    }
  });

  it("the CLI warns on every open that finds it (read-only: ignored; a writer cuts it, once)", async () => {
    const dir = freshDir();
    cpSync(damaged, dir, { recursive: true });
    const read = await cli(["--dir", dir, "stats"]);
    expect(read.code).toBe(0);
    expect(read.stderr).toContain(`moomem: warning: ${journalName} line ${lineNumber}: the last write written at `);
    expect(read.stderr).toMatch(
      /was incomplete or damaged \(CRC mismatch .*\); it is ignored \(the next writable open cuts it off\), so that write is lost \(it held \S+ of user user-2\)/,
    );
    const write = await cli(["--dir", dir, "add", "-u", "user-1", "I have a cat"]);
    expect(write.code).toBe(0);
    expect(write.stderr).toContain(`; ${cutBytes} bytes were cut off, so that write is lost (it held ${lost.id} of user user-2)`);
    const after = await cli(["--dir", dir, "stats"]);
    expect(after.code).toBe(0);
    expect(after.stderr).not.toContain("warning");
  });
});
