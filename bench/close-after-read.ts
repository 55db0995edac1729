// What a short-lived process pays on a large file store (a CLI call, a serverless function): open, one recall, close.
// A close with nothing written no longer compacts (docs/design.md, "Compaction"); a close after one add still does,
// which is what every close cost before. Also checks that the read-only session left every data file as it was.
//
// Usage: npx tsx bench/close-after-read.ts [entries, default 100000] [users, default 1]
// Prints medians of 3 runs (each on the same store): open ms, recall ms, close ms, and whether the snapshot was
// rewritten; for "open → recall → close" and for "open → add → close".

import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../src/node.ts";
import { buildSyntheticStore } from "./synthetic-store.ts";

/** Data files (lock files left out) with size and mtime. */
function files(dir: string): string {
  const folder = join(dir, "moomem");
  return readdirSync(folder)
    .filter((name) => !name.startsWith("LOCK"))
    .sort()
    .map((name) => {
      const st = statSync(join(folder, name));
      return `${name}:${st.size}:${st.mtimeMs}`;
    })
    .join(" ");
}

function snapshotBytes(dir: string): number {
  const folder = join(dir, "moomem");
  return readdirSync(folder)
    .filter((name) => name.startsWith("slot"))
    .reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
}

async function session(dir: string, write: boolean, run: number): Promise<{ open: number; call: number; close: number; rewritten: boolean }> {
  const before = files(dir);
  let t = performance.now();
  const mem = await MemoryStore.open(dir);
  const open = performance.now() - t;
  t = performance.now();
  if (write) await mem.add("user-0", `I moved to city number ${run}`);
  else await mem.recall("user-0", "coffee in Berlin");
  const call = performance.now() - t;
  t = performance.now();
  await mem.close();
  const close = performance.now() - t;
  return { open, call, close, rewritten: files(dir) !== before };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const entries = Number(process.argv[2] ?? 100_000);
const users = Number(process.argv[3] ?? 1);
const dir = mkdtempSync(join(tmpdir(), "moomem-close-bench-"));
try {
  await buildSyntheticStore(dir, entries, users);
  console.log(`${entries} entries over ${users} user(s); snapshot ${(snapshotBytes(dir) / 1e6).toFixed(1)} MB`);
  for (const [label, write] of [
    ["open → recall → close", false],
    ["open → add → close", true],
  ] as const) {
    const runs: Awaited<ReturnType<typeof session>>[] = [];
    for (let r = 0; r < 3; r++) runs.push(await session(dir, write, r));
    const f = (key: "open" | "call" | "close"): string => median(runs.map((run) => run[key])).toFixed(0);
    console.log(
      `${label}: open ${f("open")} ms, ${write ? "add" : "recall"} ${f("call")} ms, close ${f("close")} ms, files rewritten: ${runs.map((run) => run.rewritten).join("/")}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
