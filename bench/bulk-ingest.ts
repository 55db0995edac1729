// Bulk ingestion: the same inputs through `add` one by one and through `addMany` (1,000 per call), entries per second.
//
// Usage: node --import tsx bench/bulk-ingest.ts [inputs per run, default 2000] [runs, default 3]
// Each run writes a fresh store in a temporary folder (files, default sync: one fdatasync per durable write) and a
// fresh ":memory:" store, with the default extractor (patterns) and the hashing embedder, one user. Prints the
// median over the runs of entries stored per second for each path, and the ratio.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../src/node.ts";

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

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 2_000);
  const runs = Number(process.argv[3] ?? 3);
  for (const r of await benchBulkIngest(n, runs)) {
    console.log(
      `${r.storage.padEnd(8)} ${n} inputs, one user: add ${Math.round(r.add)} entries/s · addMany (${CHUNK} per call) ${Math.round(r.addMany)} entries/s · ${(r.addMany / r.add).toFixed(1)}x (median of ${runs})`,
    );
  }
}
