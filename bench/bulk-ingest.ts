// Bulk ingestion: the same inputs through `add` one by one and through `addMany` (1,000 per call), entries per second;
// and `import` of an export into a file store, entries per second.
//
// Usage: node --import tsx bench/bulk-ingest.ts [inputs per run, default 2000] [runs, default 3]
//        node --import tsx bench/bulk-ingest.ts --import [entries, default 100000] [runs, default 3]
// Each run writes a fresh store in a temporary folder (files, default sync: one fdatasync per durable write) and a
// fresh ":memory:" store, with the default extractor (patterns) and the hashing embedder, one user. Prints the
// median over the runs of entries stored per second for each path, and the ratio.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../src/node.ts";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { entryLine, headerLine } from "../src/transfer/jsonl-transfer.ts";
import { makeEntryId } from "../src/state/ids.ts";

const PEOPLE = ["Anna", "Bruno", "Chen", "Dmitri", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jamal"];
const PLACES = ["Berlin", "Lisbon", "Osaka", "Nairobi", "Quito", "Oslo", "Hanoi", "Lyon"];
const THINGS = ["violin", "chess", "sourdough", "climbing", "jazz", "pottery", "sailing", "tango"];

/** Distinct statements (one or two facts each with the default extractor). */
function inputs(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) => `On trip ${i} I met ${PEOPLE[i % PEOPLE.length]} in ${PLACES[(i >> 3) % PLACES.length]} and we talked about ${THINGS[(i >> 6) % THINGS.length]}`,
  );
}

const CHUNK = 1_000;

async function rate(path: string, texts: string[], many: boolean, expected: { stored: number | null }): Promise<number> {
  const mem = await MemoryStore.open(path);
  const started = performance.now();
  let stored = 0;
  if (many) {
    for (let i = 0; i < texts.length; i += CHUNK) for (const s of await mem.addMany("user-1", texts.slice(i, i + CHUNK))) stored += s.inserted;
  } else {
    for (const text of texts) stored += (await mem.add("user-1", text)).inserted;
  }
  const seconds = (performance.now() - started) / 1000;
  await mem.close();
  // Both paths must store the same entries (test/store/add-many.test.ts proves it entry by entry).
  if (expected.stored === null) expected.stored = stored;
  else if (stored !== expected.stored) throw new Error(`stored ${stored} entries, another run ${expected.stored}`);
  return stored / seconds;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export interface BulkResult {
  storage: string;
  add: number;
  addMany: number;
}

export async function benchBulkIngest(n: number, runs: number): Promise<BulkResult[]> {
  const texts = inputs(n);
  const results: BulkResult[] = [];
  const expected = { stored: null as number | null };
  for (const storage of ["files", ":memory:"]) {
    const add: number[] = [];
    const many: number[] = [];
    for (let r = 0; r < runs; r++) {
      for (const isMany of [false, true]) {
        const base = mkdtempSync(join(tmpdir(), "moomem-bulk-"));
        try {
          (isMany ? many : add).push(await rate(storage === "files" ? join(base, "store") : ":memory:", texts, isMany, expected));
        } finally {
          rmSync(base, { recursive: true, force: true });
        }
      }
    }
    results.push({ storage, add: median(add), addMany: median(many) });
  }
  return results;
}

export interface ImportResult {
  users: number;
  /** Entries imported per second of wall time (median over the runs). */
  rate: number;
  /** Entries imported per second of this process's CPU time (user + system; moves far less than wall time on a loaded machine). */
  cpuRate: number;
}

/** An export of `n` distinct entries spread over `users` users (with their hashing-embedder vectors), in 64 KiB chunks as a file stream gives it. */
export async function exportChunks(n: number, users: number): Promise<string[]> {
  const embedder = new HashingEmbedder();
  const texts = inputs(n);
  const vectors = await embedder.embed(texts);
  const now = Date.UTC(2025, 0, 1);
  const parts = [
    headerLine({ moomem_export: 1, entry_format: 4, embedder: { id: embedder.id, dim: embedder.dim }, user_id: null, exported_at: now, count: n }),
  ];
  texts.forEach((content, i) => {
    const t = now + i;
    parts.push(
      entryLine({
        id: makeEntryId(i + 1),
        userId: `user-${i % users}`,
        content,
        kind: "fact",
        status: "active",
        createdAt: t,
        updatedAt: t,
        seq: i + 1,
        metadata: { extractor: "patterns" },
        lifecycle: {},
        embedding: vectors[i]!,
      }),
    );
  });
  const text = parts.join("");
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 65_536) chunks.push(text.slice(i, i + 65_536));
  return chunks;
}

/** `import` of `n` entries into a fresh file store (default options: sync "always", one write for the whole import), for 1 and 1,000 users. */
export async function benchImport(n: number, runs: number, userCounts: readonly number[] = [1, 1_000]): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const users of userCounts) {
    const chunks = await exportChunks(n, users);
    const rates: number[] = [];
    const cpuRates: number[] = [];
    for (let r = 0; r < runs; r++) {
      const base = mkdtempSync(join(tmpdir(), "moomem-bulk-import-"));
      try {
        const mem = await MemoryStore.open(join(base, "store"));
        const started = performance.now();
        const cpu = process.cpuUsage();
        const summary = await mem.import(chunks);
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        cpuRates.push(n / ((used.user + used.system) / 1e6));
        await mem.close();
        if (summary.entries !== n) throw new Error(`imported ${summary.entries} entries, expected ${n}`);
        rates.push(n / seconds);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    }
    results.push({ users, rate: median(rates), cpuRate: median(cpuRates) });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--import") {
  const n = Number(process.argv[3] ?? 100_000);
  const runs = Number(process.argv[4] ?? 3);
  for (const r of await benchImport(n, runs)) {
    console.log(
      `import ${n} entries, ${r.users} user(s), files: ${Math.round(r.rate)} entries/s wall, ${Math.round(r.cpuRate)} per CPU-second (median of ${runs})`,
    );
  }
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 2_000);
  const runs = Number(process.argv[3] ?? 3);
  for (const r of await benchBulkIngest(n, runs)) {
    console.log(
      `${r.storage.padEnd(8)} ${n} inputs, one user: add ${Math.round(r.add)} entries/s · addMany (${CHUNK} per call) ${Math.round(r.addMany)} entries/s · ${(r.addMany / r.add).toFixed(1)}x (median of ${runs})`,
    );
  }
}
