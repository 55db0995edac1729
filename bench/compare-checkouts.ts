// Write and open cost of this checkout (B) against another one (A), in one process, in alternating blocks.
//
// Usage: npx tsx bench/compare-checkouts.ts <other checkout> [blocks, default 20]
// e.g.   git worktree add /tmp/base d25e6d9 && npx tsx bench/compare-checkouts.ts /tmp/base
// Both checkouts' FileBackend and MemoryStore are loaded side by side and driven in alternating blocks of 25
// operations, so a busy machine slows both alike (separate runs of append.bench.ts differ by 10x under load).
// Prints medians: FileBackend.append (sync always / none), MemoryStore.add (sync always), writable open+close,
// and recall (hybrid, top 5) over one user's 3,000 memories.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const treeA = process.argv[2];
if (treeA === undefined) throw new Error("usage: npx tsx bench/compare-checkouts.ts <other checkout> [blocks]");
const treeB = fileURLToPath(new URL("..", import.meta.url));
const BLOCKS = Number(process.argv[3] ?? 20);
const PER_BLOCK = 25;
/* eslint-disable @typescript-eslint/no-explicit-any -- two checkouts' classes, typed by neither */
interface Side {
  name: string;
  FileBackend: any;
  MemoryStore: any;
  RawExtractor: any;
}
async function side(tree: string, name: string): Promise<Side> {
  // The Node entry exports both, wherever a checkout keeps their files.
  const { FileBackend, MemoryStore, RawExtractor } = (await import(join(tree, "src/node.ts"))) as { FileBackend: any; MemoryStore: any; RawExtractor: any };
  return { name, FileBackend, MemoryStore, RawExtractor };
}
const sides = [await side(treeA, "A " + treeA), await side(treeB, "B " + treeB)];
const root = mkdtempSync(join(tmpdir(), "ab-"));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
function entry(i: number, seq: number) {
  return {
    id: `e${i}`,
    userId: `u${i % 50}`,
    content: `fact ${i} about coffee and Berlin and violin`,
    kind: "fact",
    status: "active",
    createdAt: 1,
    updatedAt: 1,
    seq,
    metadata: {},
    lifecycle: {},
    embedding: null,
  };
}
for (const mode of ["always", "none"] as const) {
  const backends = [];
  for (const s of sides) {
    const b = new s.FileBackend(join(root, `${mode}-${s.name.slice(0, 1)}`), { sync: mode });
    await b.load();
    backends.push(b);
  }
  const times: number[][] = [[], []];
  let seq = 0;
  for (let block = 0; block < BLOCKS; block++) {
    for (const k of block % 2 === 0 ? [0, 1] : [1, 0]) {
      for (let i = 0; i < PER_BLOCK; i++) {
        seq++;
        const t = performance.now();
        await backends[k].append([{ entries: [entry(seq, seq)] }]);
        times[k]!.push(performance.now() - t);
      }
    }
  }
  for (const b of backends) await b.close();
  console.log(
    `FileBackend.append sync ${mode}: median A ${(median(times[0]!) * 1000).toFixed(0)} µs, B ${(median(times[1]!) * 1000).toFixed(0)} µs (${times[0]!.length} each)`,
  );
}
{
  const stores = [];
  for (const s of sides)
    stores.push(
      await s.MemoryStore.open(join(root, `store-${s.name.slice(0, 1)}`), {
        backend: new s.FileBackend(join(root, `store-${s.name.slice(0, 1)}`), { sync: "always" }),
      }),
    );
  const times: number[][] = [[], []];
  let n = 0;
  for (let block = 0; block < BLOCKS; block++) {
    for (const k of block % 2 === 0 ? [0, 1] : [1, 0]) {
      for (let i = 0; i < PER_BLOCK; i++) {
        n++;
        const t = performance.now();
        await stores[k].add(`user-${n % 100}`, `fact ${n}: I like coffee in Berlin on Tuesday number ${n}`);
        times[k]!.push(performance.now() - t);
      }
    }
  }
  for (const s of stores) await s.close();
  console.log(
    `MemoryStore.add sync always: median A ${(median(times[0]!) * 1000).toFixed(0)} µs, B ${(median(times[1]!) * 1000).toFixed(0)} µs; adds/s A ${(1000 / median(times[0]!)).toFixed(0)}, B ${(1000 / median(times[1]!)).toFixed(0)}`,
  );
}
{
  const times: number[][] = [[], []];
  for (let block = 0; block < BLOCKS; block++) {
    for (const k of block % 2 === 0 ? [0, 1] : [1, 0]) {
      const dir = join(root, `open-${k}`);
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const b = new sides[k]!.FileBackend(dir);
        await b.load();
        await b.accept?.();
        await b.close();
        times[k]!.push(performance.now() - t);
      }
    }
  }
  console.log(`FileBackend open+close (writable): median A ${median(times[0]!).toFixed(2)} ms, B ${median(times[1]!).toFixed(2)} ms`);
}
{
  // Recall: the same 3,000 memories of one user on both sides (in memory: the search, not the disk).
  const WORDS = ["coffee", "Berlin", "violin", "sister", "marathon", "garden", "python", "Tokyo", "piano", "dog", "salmon", "chess"];
  const stores = [];
  for (const s of sides) {
    const store = await s.MemoryStore.open(":memory:", { extractor: new s.RawExtractor() });
    for (let i = 0; i < 3000; i++) {
      await store.add("u", `note ${i}: ${WORDS[i % 12]} and ${WORDS[(i * 7 + 3) % 12]} on day ${i % 31} with ${WORDS[(i * 5 + 1) % 12]}`);
    }
    stores.push(store);
  }
  const times: number[][] = [[], []];
  let q = 0;
  for (let block = 0; block < BLOCKS; block++) {
    for (const k of block % 2 === 0 ? [0, 1] : [1, 0]) {
      for (let i = 0; i < PER_BLOCK; i++) {
        q++;
        const t = performance.now();
        await stores[k].recall("u", `what about ${WORDS[q % 12]} and ${WORDS[(q * 3) % 12]} on day ${q % 31}?`, { topK: 5 });
        times[k]!.push(performance.now() - t);
      }
    }
  }
  for (const s of stores) await s.close();
  console.log(
    `MemoryStore.recall (3,000 memories, top 5): median A ${(median(times[0]!) * 1000).toFixed(0)} µs, B ${(median(times[1]!) * 1000).toFixed(0)} µs`,
  );
}
rmSync(root, { recursive: true, force: true });
