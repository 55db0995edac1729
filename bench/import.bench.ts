// Import speed: entries per second for an export of many entries, and time per line length for single long lines.
//
// Run: npx tsx bench/import.bench.ts [entries, default 20000] [content lengths in millions of characters, default 0.25,0.5,1]
//      (env CLI_MIB, default 8: the CLI case's line, in MiB, imported with the CLI's default maxContentChars)
// Prints medians of 3 runs, wall time and CPU time (user + system of the whole process: on a shared,
// loaded machine CPU time moves far less than wall time). An import must stay linear in line length (the reader never rescans a
// line it has already seen) and refuse a line over the limit with an error naming its line number.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { MemoryStore } from "../src/node.ts";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { entryLine, headerLine } from "../src/transfer/jsonl-transfer.ts";
import { makeEntryId } from "../src/state/ids.ts";
import type { EntryRecord } from "../src/types.ts";
// The largest maxContentChars a store takes (README, "API at a glance"): the long lines are imported under it.
import { MAX_CONTENT_CHARS } from "../src/validation/arguments.ts";

const ENTRIES = Number(process.argv[2] ?? 20_000);
/** Content lengths of the long-line cases, in millions of characters: up to 1,000,000, the largest maxContentChars a store takes. */
const LINE_MCHARS = (process.argv[3] ?? "0.25,0.5,1").split(",").map(Number);
const CHUNK = 64 * 1024;
const embedder = new HashingEmbedder();
const identity = { id: embedder.id, dim: embedder.dim };

function record(i: number, users: number, content: string, vector: Float32Array | null): EntryRecord {
  const t = Date.UTC(2025, 0, 1) + i;
  return {
    id: makeEntryId(i + 1),
    userId: `user-${i % users}`,
    content,
    kind: "unstructured",
    status: "active",
    createdAt: t,
    updatedAt: t,
    seq: i + 1,
    metadata: {},
    lifecycle: {},
    embedding: vector,
  };
}

function exportText(records: EntryRecord[]): string {
  const header = { moomem_export: 1, entry_format: 4, embedder: identity, user_id: null, exported_at: Date.UTC(2025, 0, 2), count: records.length };
  return headerLine(header) + records.map((r) => entryLine(r)).join("");
}

/** The text in chunks of 64 KiB, as a file stream gives it. */
function* chunks(text: string): Generator<string> {
  for (let i = 0; i < text.length; i += CHUNK) yield text.slice(i, i + CHUNK);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timeImport(text: string, options: Parameters<typeof MemoryStore.open>[1]): Promise<{ ms: number; cpuMs: number; error?: string }> {
  const dir = mkdtempSync(join(tmpdir(), "moomem-import-bench-"));
  try {
    const mem = await MemoryStore.open(dir, { sync: "none", ...options });
    const started = performance.now();
    const cpu = process.cpuUsage();
    let error: string | undefined;
    try {
      await mem.import(chunks(text));
    } catch (e) {
      error = e instanceof Error ? e.message.slice(0, 160) : String(e);
    }
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    await mem.close();
    const cpuMs = (used.user + used.system) / 1000;
    return error === undefined ? { ms, cpuMs } : { ms, cpuMs, error };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const texts = Array.from({ length: ENTRIES }, (_, i) => `memory ${i}: the user mentioned item ${i % 97} and place ${i % 13} in passing`);
  const vectors = await embedder.embed(texts);
  for (const users of [1, 1000]) {
    const text = exportText(texts.map((t, i) => record(i, users, t, vectors[i]!)));
    const runs: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < 3; r++) {
      const result = await timeImport(text, {});
      runs.push(result.ms);
      cpu.push(result.cpuMs);
    }
    console.log(
      `import ${ENTRIES} entries, ${users} user(s): ${Math.round(ENTRIES / (median(runs) / 1000))} entries/s wall, ${Math.round(ENTRIES / (median(cpu) / 1000))} per CPU-second (median of 3; wall ${runs.map((m) => m.toFixed(0)).join(", ")} ms, CPU ${cpu.map((m) => m.toFixed(0)).join(", ")} ms)`,
    );
  }
  for (const mchars of LINE_MCHARS) {
    const content = "word ".repeat(Math.floor((mchars * 1_000_000) / 5));
    const text = exportText([record(0, 1, content, null)]);
    const runs: number[] = [];
    const cpu: number[] = [];
    let error: string | undefined;
    for (let r = 0; r < 3; r++) {
      const result = await timeImport(text, { maxContentChars: MAX_CONTENT_CHARS });
      runs.push(result.ms);
      cpu.push(result.cpuMs);
      error = result.error;
    }
    console.log(
      `one line of ${content.length.toLocaleString("en")} characters of content (${text.length} chars, 64 KiB chunks): ${median(runs).toFixed(0)} ms wall, ${median(cpu).toFixed(0)} ms CPU (median of 3)${error === undefined ? "" : `, rejected: ${error}`}`,
    );
  }
  // The CLI path: `moomem import <file>` on one long line, in a child process.
  // CLI_MIB=100 shows the limit: a line over 16 MiB + 6 × maxContentChars is refused, naming it.
  const cliMib = Number(process.env["CLI_MIB"] ?? 8);
  const dir = mkdtempSync(join(tmpdir(), "moomem-import-cli-"));
  try {
    const file = join(dir, "long.jsonl");
    writeFileSync(file, exportText([record(0, 1, "word ".repeat((cliMib * 1024 * 1024) / 5), null)]));
    const started = performance.now();
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "--dir", join(dir, "store"), "import", file], { encoding: "utf8" });
    console.log(
      `moomem import of one ${cliMib} MiB line (CLI, tsx start included): ${(performance.now() - started).toFixed(0)} ms, exit ${run.status}: ${(run.stdout + run.stderr).trim().slice(0, 200)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
