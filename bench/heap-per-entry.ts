// Heap per loaded entry: a store's entries in memory with every user's indexes built, hashing embedder.
//
// Usage: node --expose-gc --import tsx bench/heap-per-entry.ts [entries, default 100000] [users, default 1]
// Imports `entries` distinct statements (one user, or spread over `users`) into a file store, reopens it, recalls four times
// per user (which loads the user and builds its BM25 index at the first, its vector and dedup indexes at the fourth: a user read
// from a snapshot keeps its vectors where they were read until its first write or fourth read; READS=1: the state after one
// recall; NO_INDEX=1: loads only), and reports the growth of heapUsed + arrayBuffers (typed
// arrays' data lives outside the JS heap) / entries, both taken after a full GC, with the export text generated lazily so it is not counted. Also prints the store's own
// estimate (stats().loadedBytes / entries) for comparison. Issue 17's target: at most 2 KiB per entry.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../src/node.ts";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { entryLine, headerLine } from "../src/transfer/jsonl-transfer.ts";
import { makeEntryId } from "../src/state/ids.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const PEOPLE = ["Anna", "Bruno", "Chen", "Dmitri", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jamal"];
const PLACES = ["Berlin", "Lisbon", "Osaka", "Nairobi", "Quito", "Oslo", "Hanoi", "Lyon"];
const THINGS = ["violin", "chess", "sourdough", "climbing", "jazz", "pottery", "sailing", "tango"];

const text = (i: number): string =>
  `On trip ${i} I met ${PEOPLE[i % PEOPLE.length]} in ${PLACES[(i >> 3) % PLACES.length]} and we talked about ${THINGS[(i >> 6) % THINGS.length]}`;

/** The export, made a thousand lines at a time as it is read (nothing of it stays reachable). */
async function* exportLines(n: number, users: number): AsyncGenerator<string> {
  const embedder = new HashingEmbedder();
  const now = Date.UTC(2025, 0, 1);
  yield headerLine({ moomem_export: 1, entry_format: 4, embedder: { id: embedder.id, dim: embedder.dim }, user_id: null, exported_at: now, count: n });
  for (let start = 0; start < n; start += 1_000) {
    const texts = Array.from({ length: Math.min(1_000, n - start) }, (_, k) => text(start + k));
    const vectors = await embedder.embed(texts);
    let chunk = "";
    texts.forEach((content, k) => {
      const i = start + k;
      chunk += entryLine({
        id: makeEntryId(i + 1),
        userId: `user-${i % users}`,
        content,
        kind: "fact",
        status: "active",
        createdAt: now + i,
        updatedAt: now + i,
        seq: i + 1,
        metadata: {},
        lifecycle: { extractor: "patterns" },
        embedding: vectors[k]!,
      });
    });
    yield chunk;
  }
}

/** JS heap plus the ArrayBuffers' memory outside it (where V8 keeps typed arrays' data: the vectors), after a full GC. */
function heapAfterGc(): { heap: number; buffers: number } {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

export async function heapPerEntry(n: number, users: number): Promise<{ perEntry: number; heap: number; buffers: number; estimate: number }> {
  // A file store, written by an import and reopened: the open reads where each user's lines are (not counted),
  // then every user is loaded and its indexes built by a recall (counted).
  const dir = mkdtempSync(join(tmpdir(), "moomem-heap-"));
  try {
    const path = join(dir, "store");
    let writer: MemoryStore | null = await MemoryStore.open(path, { sync: "none" });
    await writer.import(exportLines(n, users));
    await writer.close();
    writer = null;
    const mem = await MemoryStore.open(path, { sync: "none" });
    const before = heapAfterGc();
    for (let u = 0; u < users; u++) {
      if (process.env["NO_INDEX"] === undefined) {
        for (let r = 0; r < Number(process.env["READS"] ?? 4); r++) await mem.recall(`user-${u}`, "who did I meet in Berlin");
      } else await mem.list(`user-${u}`);
    }
    const after = heapAfterGc();
    const stats = await mem.stats();
    if (process.env["HEAP_SNAPSHOT"] !== undefined) (await import("node:v8")).writeHeapSnapshot(process.env["HEAP_SNAPSHOT"]);
    await mem.close();
    const heap = (after.heap - before.heap) / n;
    const buffers = (after.buffers - before.buffers) / n;
    return { perEntry: heap + buffers, heap, buffers, estimate: stats.loadedBytes / n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 100_000);
  const users = Number(process.argv[3] ?? 1);
  const { perEntry, heap, buffers, estimate } = await heapPerEntry(n, users);
  console.log(
    `${n} entries, ${users} user(s), indexes built: ${Math.round(perEntry)} bytes per entry (${(perEntry / 1024).toFixed(2)} KiB: JS heap ${Math.round(heap)}, array buffers ${Math.round(buffers)}); stats().loadedBytes estimates ${Math.round(estimate)}`,
  );
}
