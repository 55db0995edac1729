// Cold start of a large file store: open time, RSS after open, and the first recall of a user nobody asked about yet,
// for this checkout and (optionally) another one, each measured in a fresh process on the same store; then, for this
// checkout, one process that recalls every user once under `maxLoadedUsers` (RSS must stay bounded).
//
// Usage: node --expose-gc --import tsx bench/cold-start.ts [entries, default 100000] [users, default 1000] [other checkout]
//        node --expose-gc --import tsx bench/cold-start.ts --million   (1,000,000 entries over 10,000 users; minutes)
//        node --expose-gc --import tsx bench/cold-start.ts 100000 1    (100,000 entries of one user: open + first recall)
//        add --report to record the figures in docs/bench/cold-start.json and redraw docs/bench/cold-start.svg
// e.g.   mkdir /tmp/base && git archive 5085519 src | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
//        node --expose-gc --import tsx bench/cold-start.ts 100000 1000 /tmp/base
// The store is written once (FileBackend appends, compacted every 100,000 entries) by this checkout; both read the same files,
// so the other checkout must read this one's snapshot format: a checkout older than snapshot v6 cannot read a v6 store, so compare
// with one by running its own copy of this script, e.g. `cd /tmp/base && node --expose-gc --import tsx bench/cold-start.ts 100000 1`.
//        node --expose-gc --import tsx bench/cold-start.ts --build DIR 100000 1   (only writes the store, e.g. to profile a first load)
// Prints, per checkout, medians of 3 processes: open ms, RSS MB after open, first-recall ms (p50 over 20 users
// never loaded before), RSS MB after those 20 users; then the every-user workload (RSS sampled every 5 % of the users),
// with maxLoadedUsers 100 and, up to 200,000 entries, without a bound.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { groupedBarChart } from "../eval/svg-chart.ts";
import { buildSyntheticStore } from "./synthetic-store.ts";

const here = fileURLToPath(new URL("..", import.meta.url));

interface Measure {
  openMs: number;
  rssAfterOpenMb: number;
  firstRecallP50Ms: number;
  rssAfterRecallsMb: number;
  /** The open plus the first recall (of a user never loaded): what a CLI call or a serverless function waits for. */
  openAndFirstRecallMs: number;
}

/** Users kept in memory by the every-user workload. */
const BOUND = 100;

interface Touch {
  users: number;
  /** maxLoadedUsers, or null for no bound. */
  bound: number | null;
  /** RSS MB after each 5 % of the users. */
  samples: number[];
  seconds: number;
  firstRecallP50Ms: number;
  maxRssMb: number;
  lastRssMb: number;
  loadedUsers: number;
}

/** One process recalling every user once, in order, with at most `bound` users in memory (null: no bound); RSS sampled 20 times. */
async function touchEveryUser(dir: string, users: number, bound: number | null): Promise<Touch> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const { MemoryStore } = await import("../src/node.ts");
  const rss = (): number => {
    gc?.();
    return process.memoryUsage().rss / 2 ** 20;
  };
  const mem = await MemoryStore.open(dir, bound === null ? {} : { maxLoadedUsers: bound });
  const samples: number[] = [];
  const started = performance.now();
  const times: number[] = [];
  let maxRssMb = rss();
  for (let u = 0; u < users; u++) {
    const t = performance.now();
    const hits = await mem.recall(`user-${u}`, "coffee hiking Berlin", { topK: 5 });
    times.push(performance.now() - t);
    if (hits.length === 0) throw new Error(`no hit for user-${u}`);
    if ((u + 1) % Math.max(1, Math.floor(users / 20)) === 0) {
      samples.push(rss());
      maxRssMb = Math.max(maxRssMb, samples.at(-1)!);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const lastRssMb = rss();
  const { loadedUsers } = await mem.stats();
  await mem.close();
  return {
    users,
    bound,
    samples,
    seconds,
    firstRecallP50Ms: median(times),
    maxRssMb: Math.max(maxRssMb, lastRssMb),
    lastRssMb,
    loadedUsers: loadedUsers ?? -1,
  };
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
  const firstRecallMs = times[0]!;
  times.sort((a, b) => a - b);
  const rssAfterRecallsMb = rss();
  await mem.close();
  const openAndFirstRecallMs = openMs + firstRecallMs;
  return { openMs, rssAfterOpenMb, firstRecallP50Ms: times[10]!, rssAfterRecallsMb, openAndFirstRecallMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Recorded {
  entries: number;
  users: number;
  measure: Record<keyof Measure, number>;
  touch: Touch;
  /** The same workload without a bound (small stores only: a million entries all loaded take gigabytes). */
  unbounded: Touch | null;
  measuredAt: string;
}

const JSON_PATH = fileURLToPath(new URL("../docs/bench/cold-start.json", import.meta.url));
const SVG_PATH = fileURLToPath(new URL("../docs/bench/cold-start.svg", import.meta.url));

/** RSS after open, and its largest value while every user is recalled under the bound, per store size. */
function renderChart(all: Recorded[]): string {
  return groupedBarChart({
    title: `RSS of a file store (MB): after open, and while every user is recalled with maxLoadedUsers ${BOUND}`,
    groups: all.map((r) => `${r.entries.toLocaleString("en")} entries / ${r.users.toLocaleString("en")} users`),
    series: [
      { name: "after open", color: "#4f81bd", values: all.map((r) => r.measure.rssAfterOpenMb) },
      { name: `every user recalled, at most ${BOUND} loaded (largest)`, color: "#9bbb59", values: all.map((r) => r.touch.maxRssMb) },
      { name: "every user recalled, no bound (largest)", color: "#c0504d", values: all.map((r) => r.unbounded?.maxRssMb ?? Number.NaN) },
    ],
    yLabel: "RSS MB",
    format: (v) => v.toFixed(0),
    width: 820,
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--measure") {
    const [, tree, dir, users] = argv;
    process.stdout.write(JSON.stringify(await measure(tree!, dir!, Number(users))));
    return;
  }
  if (argv[0] === "--build") {
    // Only writes the store (e.g. to profile a first load: `--build DIR 100000 1`, then `--measure . DIR 1` under `node --cpu-prof`).
    const [, dir, entries, users] = argv;
    await buildSyntheticStore(dir!, Number(entries), Number(users));
    return;
  }
  if (argv[0] === "--touch") {
    const [, dir, users, bound] = argv;
    process.stdout.write(JSON.stringify(await touchEveryUser(dir!, Number(users), bound === "none" ? null : Number(bound))));
    return;
  }
  const report = argv.includes("--report");
  const million = argv.includes("--million");
  const rest = argv.filter((a) => !a.startsWith("--"));
  const entries = million ? 1_000_000 : Number(rest[0] ?? 100_000);
  const users = million ? 10_000 : Number(rest[1] ?? 1_000);
  const other = million ? undefined : rest[2];
  const base = mkdtempSync(join(tmpdir(), "moomem-cold-"));
  try {
    const dir = join(base, "store");
    const t = performance.now();
    await buildSyntheticStore(dir, entries, users);
    console.log(`built ${entries} entries over ${users} users in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const trees: [string, string][] = [["this checkout", here]];
    if (other !== undefined) trees.unshift(["other checkout", other]);
    const child = (args: string[]): string =>
      execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), ...args], {
        cwd: here,
        encoding: "utf8",
        maxBuffer: 2 ** 20,
      });
    let mine: Record<keyof Measure, number> | null = null;
    for (const [name, tree] of trees) {
      const runs: Measure[] = [];
      // A fresh process each time: RSS and open time without anything warmed up by an earlier open.
      for (let r = 0; r < 3; r++) runs.push(JSON.parse(child(["--measure", tree, dir, String(users)])) as Measure);
      const keys: Array<keyof Measure> = ["openMs", "rssAfterOpenMb", "firstRecallP50Ms", "rssAfterRecallsMb", "openAndFirstRecallMs"];
      const medians = Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))])) as Record<keyof Measure, number>;
      if (tree === here) mine = medians;
      const m = (k: keyof Measure): string => medians[k].toFixed(1);
      console.log(
        `${name} (${tree}): open ${m("openMs")} ms · RSS after open ${m("rssAfterOpenMb")} MB · first recall of a never-loaded user p50 ${m("firstRecallP50Ms")} ms · RSS after 20 users ${m("rssAfterRecallsMb")} MB · open + first recall ${m("openAndFirstRecallMs")} ms`,
      );
    }
    const touchWith = (bound: number | null): Touch => {
      const touch = JSON.parse(child(["--touch", dir, String(users), bound === null ? "none" : String(bound)])) as Touch;
      console.log(
        `every user recalled once, ${bound === null ? "no bound" : `maxLoadedUsers ${bound}`}: ${touch.users} users in ${touch.seconds.toFixed(1)} s · recall p50 ${touch.firstRecallP50Ms.toFixed(1)} ms · RSS largest ${touch.maxRssMb.toFixed(1)} MB, at the end ${touch.lastRssMb.toFixed(1)} MB · ${touch.loadedUsers} users loaded at the end · RSS every 5 % of the users: ${touch.samples.map((v) => v.toFixed(0)).join(" ")}`,
      );
      return touch;
    };
    const touch = touchWith(BOUND);
    const unbounded = entries <= 200_000 ? touchWith(null) : null;
    if (report && mine !== null) {
      const all = existsSync(JSON_PATH) ? (JSON.parse(readFileSync(JSON_PATH, "utf8")) as Recorded[]) : [];
      const kept = all.filter((r) => r.entries !== entries || r.users !== users);
      kept.push({ entries, users, measure: mine, touch, unbounded, measuredAt: new Date().toISOString() });
      kept.sort((a, b) => a.entries - b.entries || a.users - b.users);
      writeFileSync(JSON_PATH, `${JSON.stringify(kept, null, 2)}\n`);
      writeFileSync(SVG_PATH, renderChart(kept));
      console.log("wrote docs/bench/cold-start.json and cold-start.svg");
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
