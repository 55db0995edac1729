// Write cost of the file backend at 1k / 10k / 100k stored entries per sync mode, open time, bytes per entry.
//
// Run: npx tsx bench/append.bench.ts [sizes, e.g. 1000,10000,100000]
// Prints medians. The seed's full snapshot rewrite cost ~1.3 ms per add at 2k entries and ~5 ms at 20k;
// a journal append must stay flat: per-add cost at 100k within 2x of the cost at 1k.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Batch } from "../src/persistence/backend.ts";
import type { EntryRecord, SyncMode } from "../src/types.ts";
import { FileBackend } from "../src/persistence/file/file-backend.ts";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { MemoryStore } from "../src/store/memory-store.ts";

const SIZES = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const MODES: SyncMode[] = ["always", "interval", "none"];
const USERS = 1000;
const embedder = new HashingEmbedder();
const identity = { id: embedder.id, dim: embedder.dim };

const VOCAB = [
  "coffee",
  "peanuts",
  "Berlin",
  "nurse",
  "violin",
  "daughter",
  "hiking",
  "vegetarian",
  "Tuesday",
  "meeting",
  "allergic",
  "likes",
  "works",
  "lives",
  "moved",
  "prefers",
  "tea",
  "Shanghai",
  "火锅",
  "喜欢",
];

function text(i: number): string {
  const words: string[] = [];
  let x = (i * 2654435761) >>> 0;
  for (let k = 0; k < 14; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(VOCAB[(x >>> 8) % VOCAB.length]!);
  }
  return `fact ${i}: ${words.join(" ")}`;
}

async function makeEntries(from: number, count: number): Promise<EntryRecord[]> {
  const texts: string[] = [];
  for (let i = 0; i < count; i++) texts.push(text(from + i));
  const vectors = await embedder.embed(texts);
  const now = Date.now();
  return texts.map((content, i) => ({
    id: `bench-${from + i}`,
    userId: `user-${(from + i) % USERS}`,
    content,
    kind: "unstructured",
    status: "active",
    createdAt: now,
    updatedAt: now,
    seq: from + i + 1,
    metadata: {},
    lifecycle: { extractor: "raw" },
    embedding: vectors[i]!,
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function ms(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`;
}

/** Builds a compacted store of `n` entries (written through the backend with sync none, then one snapshot). */
async function build(dir: string, n: number): Promise<void> {
  const backend = new FileBackend(dir, { sync: "none" });
  await backend.load();
  const all: EntryRecord[] = [];
  for (let from = 0; from < n; from += 5000) {
    const entries = await makeEntries(from, Math.min(5000, n - from));
    const batches: Batch[] = entries.map((e) => ({ entries: [e] }));
    for (let i = 0; i < batches.length; i += 500) await backend.append(batches.slice(i, i + 500));
    all.push(...entries);
  }
  await backend.compact({ embedder: identity, count: all.length, entries: all });
  await backend.close();
}

interface Row {
  n: number;
  mode: SyncMode;
  backendAdd: number;
  group64: number;
  storeAdd: number;
}

async function measureBackend(dir: string, mode: SyncMode, firstSeq: number): Promise<{ add: number; group64: number }> {
  const backend = new FileBackend(dir, { sync: mode });
  await backend.load();
  await backend.accept();
  const samples = mode === "always" ? 200 : 400;
  const pool = await makeEntries(firstSeq, samples + 64 * 20);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await backend.append([{ entries: [pool[i]!] }]);
    times.push(performance.now() - t);
  }
  // Group commit: 64 concurrent writers' batches in one append (what the store's committer does).
  const groups: number[] = [];
  for (let g = 0; g < 20; g++) {
    const batch = pool.slice(samples + g * 64, samples + (g + 1) * 64).map((e) => ({ entries: [e] }));
    const t = performance.now();
    await backend.append(batch);
    groups.push((performance.now() - t) / 64);
  }
  await backend.close();
  return { add: median(times), group64: median(groups) };
}

async function measureStore(dir: string, mode: SyncMode, n: number): Promise<{ add: number; open: number }> {
  const t0 = performance.now();
  const store = await MemoryStore.open(dir, { backend: new FileBackend(dir, { sync: mode }), embedder });
  const open = performance.now() - t0;
  const times: number[] = [];
  const samples = mode === "always" ? 150 : 300;
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await store.add(`user-${i % USERS}`, `${text(n * 7 + i)} (store bench ${mode} ${i})`);
    times.push(performance.now() - t);
  }
  await store.close();
  return { add: median(times), open };
}

const root = mkdtempSync(join(tmpdir(), "moomem-bench-"));
const rows: Row[] = [];
const opens: { n: number; backend: number; store: number; bytesPerEntry: number; journalLine: number }[] = [];
try {
  for (const n of SIZES) {
    const dir = join(root, `n${n}`);
    const tb = performance.now();
    await build(dir, n);
    const buildMs = performance.now() - tb;

    const t = performance.now();
    const probe = new FileBackend(dir, { readOnly: true });
    const loaded = await probe.load();
    const backendOpen = performance.now() - t;
    const bytesPerEntry = probe.stats().bytesOnDisk / loaded.entries.length;
    await probe.close();

    let storeOpen = 0;
    for (const [k, mode] of MODES.entries()) {
      // Seqs (and ids) far above everything written so far: the store continues after the largest seq it finds.
      const b = await measureBackend(dir, mode, 10_000_000 * (k + 1));
      const s = await measureStore(dir, mode, n);
      storeOpen = s.open;
      rows.push({ n, mode, backendAdd: b.add, group64: b.group64, storeAdd: s.add });
    }
    const line = new FileBackend(join(root, `line${n}`), { sync: "none" });
    await line.load();
    // Accepting the open writes the journal header and the lock's files: measure only what one add appends.
    await line.accept();
    const before = line.stats().bytesOnDisk;
    await line.append([{ entries: await makeEntries(0, 1) }]);
    const journalLine = line.stats().bytesOnDisk - before;
    await line.close();
    opens.push({ n, backend: backendOpen, store: storeOpen, bytesPerEntry, journalLine });
    console.error(`built ${n} entries in ${(buildMs / 1000).toFixed(1)} s`);
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

console.log("\nper-add cost (median), one add at a time");
console.log("entries  sync      backend append   backend, 64-batch group (per batch)   MemoryStore.add");
for (const r of rows) {
  console.log(`${String(r.n).padEnd(8)} ${r.mode.padEnd(9)} ${ms(r.backendAdd).padEnd(16)} ${ms(r.group64).padEnd(37)} ${ms(r.storeAdd)}`);
}
for (const mode of MODES) {
  const small = rows.find((r) => r.mode === mode && r.n === SIZES[0]);
  const large = rows.find((r) => r.mode === mode && r.n === SIZES[SIZES.length - 1]);
  if (small !== undefined && large !== undefined && small !== large) {
    console.log(
      `sync ${mode}: backend append at ${large.n} / at ${small.n} = ${(large.backendAdd / small.backendAdd).toFixed(2)}x; store add ${(large.storeAdd / small.storeAdd).toFixed(2)}x`,
    );
  }
}
console.log("\nopen time and size");
console.log("entries  FileBackend.load   MemoryStore.open   bytes/entry on disk (snapshot)   journal bytes/add");
for (const o of opens) {
  console.log(`${String(o.n).padEnd(8)} ${ms(o.backend).padEnd(18)} ${ms(o.store).padEnd(18)} ${o.bytesPerEntry.toFixed(0).padEnd(32)} ${o.journalLine}`);
}
