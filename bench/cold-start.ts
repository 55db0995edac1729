// Cold start of a large file store: open time, RSS after open, and the first recall of a user nobody asked about yet,
// for this checkout and (optionally) another one, each measured in a fresh process on the same store.
//
// Usage: node --expose-gc --import tsx bench/cold-start.ts [entries, default 100000] [users, default 1000] [other checkout]
// e.g.   mkdir /tmp/base && git archive 5085519 src | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
//        node --expose-gc --import tsx bench/cold-start.ts 100000 1000 /tmp/base
// The store is written once (FileBackend appends + one compaction) by this checkout; both read the same files.
// Prints, per checkout, medians of 3 processes: open ms, RSS MB after open, first-recall ms (p50 over 20 users
// never loaded before), RSS MB after those 20 users.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EntryRecord } from "../src/types.ts";

const here = fileURLToPath(new URL("..", import.meta.url));

interface Measure {
  openMs: number;
  rssAfterOpenMb: number;
  firstRecallP50Ms: number;
  rssAfterRecallsMb: number;
}

const VOCAB = ["coffee", "peanuts", "Berlin", "nurse", "violin", "daughter", "hiking", "vegetarian", "Tuesday", "meeting", "allergic", "tea", "Shanghai"];

function text(i: number): string {
  const words: string[] = [];
  let x = (i * 2654435761) >>> 0;
  for (let k = 0; k < 12; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(VOCAB[(x >>> 8) % VOCAB.length]!);
  }
  return `fact ${i}: ${words.join(" ")}`;
}

async function build(dir: string, entries: number, users: number): Promise<void> {
  const { FileBackend } = await import("../src/persistence/file/file-backend.ts");
  const { HashingEmbedder } = await import("../src/embedding/hashing-embedder.ts");
  const { makeEntryId } = await import("../src/state/ids.ts");
  const embedder = new HashingEmbedder();
  const backend = new FileBackend(dir, { sync: "none" });
  await backend.load();
  const all: EntryRecord[] = [];
  for (let start = 0; start < entries; start += 512) {
    const texts: string[] = [];
    for (let i = start; i < Math.min(entries, start + 512); i++) texts.push(text(i));
    const vectors = await embedder.embed(texts);
    const batch: EntryRecord[] = texts.map((content, k) => {
      const seq = start + k + 1;
      return {
        id: makeEntryId(seq),
        userId: `user-${seq % users}`,
        content,
        kind: "fact",
        status: "active",
        createdAt: 1_700_000_000_000 + seq,
        updatedAt: 1_700_000_000_000 + seq,
        seq,
        metadata: {},
        lifecycle: { extractor: "patterns" },
        embedding: vectors[k]!,
      };
    });
    all.push(...batch);
    await backend.append([{ entries: batch }]);
  }
  await backend.compact({ embedder: { id: embedder.id, dim: embedder.dim }, count: all.length, entries: all });
  await backend.close();
}

/** One fresh process's figures for checkout `tree` on the store in `dir`. */
async function measure(tree: string, dir: string, users: number): Promise<Measure> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const { MemoryStore } = (await import(join(tree, "src/node.ts"))) as typeof import("../src/node.ts");
  const rss = (): number => {
    gc?.();
    return process.memoryUsage().rss / 2 ** 20;
  };
  const t0 = performance.now();
  const mem = await MemoryStore.open(dir);
  const openMs = performance.now() - t0;
  const rssAfterOpenMb = rss();
  const times: number[] = [];
  for (let k = 0; k < 20; k++) {
    const user = `user-${(k * 37) % users}`;
    const t = performance.now();
    const hits = await mem.recall(user, "coffee hiking Berlin", { topK: 5 });
    times.push(performance.now() - t);
    if (hits.length === 0) throw new Error(`no hit for ${user}`);
  }
  times.sort((a, b) => a - b);
  const rssAfterRecallsMb = rss();
  await mem.close();
  return { openMs, rssAfterOpenMb, firstRecallP50Ms: times[10]!, rssAfterRecallsMb };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === "--measure") {
    const [tree, dir, users] = rest;
    process.stdout.write(JSON.stringify(await measure(tree!, dir!, Number(users))));
    return;
  }
  const entries = Number(mode ?? 100_000);
  const users = Number(rest[0] ?? 1_000);
  const other = rest[1];
  const base = mkdtempSync(join(tmpdir(), "moomem-cold-"));
  try {
    const dir = join(base, "store");
    const t = performance.now();
    await build(dir, entries, users);
    console.log(`built ${entries} entries over ${users} users in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const trees: [string, string][] = [["this checkout", here]];
    if (other !== undefined) trees.unshift(["other checkout", other]);
    for (const [name, tree] of trees) {
      const runs: Measure[] = [];
      for (let r = 0; r < 3; r++) {
        // A fresh process each time: RSS and open time without anything warmed up by an earlier open.
        const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--measure", tree, dir, String(users)], {
          cwd: here,
          encoding: "utf8",
        });
        runs.push(JSON.parse(out) as Measure);
      }
      const m = (k: keyof Measure): string => median(runs.map((r) => r[k])).toFixed(1);
      console.log(
        `${name} (${tree}): open ${m("openMs")} ms · RSS after open ${m("rssAfterOpenMb")} MB · first recall of a never-loaded user p50 ${m("firstRecallP50Ms")} ms · RSS after 20 users ${m("rssAfterRecallsMb")} MB`,
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
