// `npm run bench`'s moomem rows (import rate, awaited adds, recall p50) for this checkout against another one, in fresh
// processes alternated A, B, A, B… so that a busy machine slows both alike; prints medians, and CPU ms per add
// (process.cpuUsage over the awaited adds, which a shared machine's waits do not inflate).
//
// Usage: node --expose-gc --import tsx bench/moomem-paired.ts <other checkout> [sizes, default 1000,10000,100000] [rounds, default 3]
// e.g.   mkdir /tmp/base && git archive 5114980 | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
//        node --expose-gc --import tsx bench/moomem-paired.ts /tmp/base 1000,10000,100000 3
// Both sides run this checkout's corpus and import lines (bench/corpus.ts); only the store under test comes from the checkout.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HashingEmbedder } from "../src/embedding/hashing-embedder.ts";
import { entryLine, headerLine } from "../src/transfer/jsonl-transfer.ts";
import { makeEntryId } from "../src/state/ids.ts";
import { makeCorpus } from "./corpus.ts";

interface Figures {
  importRate: number;
  addRate: number;
  cpuMsPerAdd: number;
  recallP50Ms: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function one(tree: string, size: number, users: number): Promise<Figures> {
  const { MemoryStore } = (await import(join(tree, "src/node.ts"))) as typeof import("../src/node.ts");
  const corpus = makeCorpus(size, 200);
  const embedder = new HashingEmbedder();
  const vectors = corpus.docs.map((d) => embedder.embedOne(d));
  const m = Math.min(size, size >= 100_000 ? 1_000 : 2_000);
  const now = Date.UTC(2025, 0, 1);
  const lines = [
    headerLine({ moomem_export: 1, entry_format: 4, embedder: { id: embedder.id, dim: embedder.dim }, user_id: null, exported_at: now, count: size - m }),
  ];
  for (let i = 0; i < size - m; i++) {
    const record = {
      id: makeEntryId(i + 1),
      userId: `user-${i % users}`,
      content: corpus.docs[i]!,
      kind: "unstructured" as const,
      status: "active" as const,
      createdAt: now + i,
      updatedAt: now + i,
      seq: i + 1,
      metadata: {},
      lifecycle: {},
      embedding: vectors[i]!,
    };
    lines.push(entryLine(record));
  }
  const dir = mkdtempSync(join(tmpdir(), "moomem-paired-"));
  try {
    let mem = await MemoryStore.open(dir, { sync: "none" });
    let started = performance.now();
    await mem.import(lines);
    const importRate = (size - m) / ((performance.now() - started) / 1000);
    await mem.close();
    mem = await MemoryStore.open(dir, { sync: "none" });
    // Four recalls: a user read from a snapshot adds its vectors to its index at its first write or fourth read.
    for (let u = 0; u < users; u++) for (let r = 0; r < 4; r++) await mem.recall(`user-${u}`, "warm up");
    const cpu = process.cpuUsage();
    started = performance.now();
    for (let i = size - m; i < size; i++) await mem.add(`user-${i % users}`, corpus.docs[i]!);
    const addRate = m / ((performance.now() - started) / 1000);
    const used = process.cpuUsage(cpu);
    const times: number[] = [];
    for (let i = 0; i < 220; i++) {
      const q = i % corpus.queries.length;
      const t = performance.now();
      await mem.recall(`user-${corpus.querySources[q]! % users}`, corpus.queries[q]!, { topK: 5 });
      if (i >= 20) times.push(performance.now() - t);
    }
    await mem.close();
    return { importRate, addRate, cpuMsPerAdd: (used.user + used.system) / 1000 / m, recallP50Ms: median(times) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--one") {
  console.log(JSON.stringify(await one(argv[1]!, Number(argv[2]), Number(argv[3]))));
} else {
  const other = argv[0];
  if (other === undefined) throw new Error("usage: node --expose-gc --import tsx bench/moomem-paired.ts <other checkout> [sizes] [rounds]");
  const here = fileURLToPath(new URL("..", import.meta.url));
  const sizes = (argv[1] ?? "1000,10000,100000").split(",").map(Number);
  const rounds = Number(argv[2] ?? 3);
  const script = fileURLToPath(import.meta.url);
  for (const size of sizes) {
    for (const users of [1, 1000]) {
      const runs: Record<string, Figures[]> = { A: [], B: [] };
      for (let r = 0; r < rounds; r++) {
        for (const [side, tree] of [
          ["A", other],
          ["B", here],
        ] as const) {
          const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", script, "--one", tree, String(size), String(users)], {
            encoding: "utf8",
          });
          runs[side]!.push(JSON.parse(out.trim().split("\n").at(-1)!) as Figures);
        }
      }
      for (const side of ["A", "B"]) {
        const f = runs[side]!;
        const med = (k: keyof Figures): number => median(f.map((x) => x[k]));
        console.log(
          `${side} ${String(size).padStart(6)} entries, ${String(users).padStart(4)} users: import ${med("importRate").toFixed(0)}/s  add ${med("addRate").toFixed(0)}/s  CPU ${med("cpuMsPerAdd").toFixed(2)} ms/add  recall p50 ${med("recallP50Ms").toFixed(2)} ms`,
        );
      }
    }
  }
}
