// The read of one user's v6 section, by phase: the read, decodeSection (CRC, block line, entry lines) and
// EntryState.loadUser, each in a fresh process (a first load: nothing compiled or cached yet), for this checkout
// and optionally another, alternated; prints the median of each phase (wall ms and CPU ms) and the load average.
//
// Usage: node --import tsx bench/section-decode.ts DIR [runs, default 5] [other checkout]
//        where DIR holds a store written by `node --import tsx bench/cold-start.ts --build DIR 100000 1`
// e.g.   mkdir /tmp/base && git archive b218308 src | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
//        node --import tsx bench/section-decode.ts /tmp/store 5 /tmp/base

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));

interface Phases {
  readMs: number;
  decodeMs: number;
  decodeCpuMs: number;
  loadUserMs: number;
  loadUserCpuMs: number;
}

/** One first load, in this process, with the modules of `tree`. */
async function measure(tree: string, dir: string): Promise<Phases> {
  const nfs = (await import(`${tree}/src/persistence/file/node-file-system.ts`)) as typeof import("../src/persistence/file/node-file-system.ts");
  const ss = (await import(`${tree}/src/persistence/file/sectioned-snapshot.ts`)) as typeof import("../src/persistence/file/sectioned-snapshot.ts");
  const { EntryState } = (await import(`${tree}/src/state/entry-state.ts`)) as typeof import("../src/state/entry-state.ts");
  const fs = new nfs.NodeFileSystem();
  const path = `${dir}/moomem/slot0.jsonl`;
  const { header } = await ss.slotVersion(fs, path);
  if (header === null) throw new Error(`${path} has no header`);
  const table = await ss.readSectionTable(fs, path, header);
  const section = table.sections[0]!;
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let t = performance.now();
  const bytes = (await fs.readRanges!(path, [{ start: section.offset, length: section.length }]))[0]!;
  const readMs = performance.now() - t;
  t = performance.now();
  let c = cpu();
  const records = ss.decodeSection(bytes, section);
  const decodeMs = performance.now() - t;
  const decodeCpuMs = cpu() - c;
  const state = new EntryState(table.embedder.dim);
  state.addCold(section.summary);
  t = performance.now();
  c = cpu();
  state.loadUser(section.userId, records);
  const loadUserMs = performance.now() - t;
  const loadUserCpuMs = cpu() - c;
  if (state.loadedSize !== section.count) throw new Error(`loaded ${state.loadedSize} entries, not ${section.count}`);
  return { readMs, decodeMs, decodeCpuMs, loadUserMs, loadUserCpuMs };
}

if (process.argv[2] === "--child") {
  console.log(JSON.stringify(await measure(process.argv[3]!, process.argv[4]!)));
} else {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error("usage: node --import tsx bench/section-decode.ts DIR [runs] [other checkout]");
  const runs = Number(process.argv[3] ?? 5);
  const trees = [here.replace(/\/$/, ""), ...(process.argv[4] === undefined ? [] : [process.argv[4].replace(/\/$/, "")])];
  const results = new Map<string, Phases[]>(trees.map((tree) => [tree, []]));
  const loads: number[] = [];
  for (let r = 0; r < runs; r++) {
    for (const tree of trees) {
      loads.push(Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]));
      const out = execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", tree, dir], { encoding: "utf8" });
      results.get(tree)!.push(JSON.parse(out.trim().split("\n").at(-1)!) as Phases);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [tree, phases] of results) {
    const row = Object.fromEntries(Object.keys(phases[0]!).map((k) => [k, Math.round(median(phases.map((p) => p[k as keyof Phases])))]));
    console.log(tree, JSON.stringify(row));
  }
  console.log(`load average (1 min) over the runs: ${Math.min(...loads)}–${Math.max(...loads)}`);
}
