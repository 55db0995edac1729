// 30,000 templated memories over 200 users through the default add pipeline: how many does the offline judge supersede?
//
// Usage: npx tsx bench/templated.bench.ts [--extractor patterns|raw] [--adds N] [--users N]
// Each memory is "memory <i>: I like <X> and <Y>, not <Z> (<i>)" with X, Y, Z drawn from 12 foods, so
// many memories of a user share their words and differ only in their variables. Every one is a
// different fact: none may supersede another (issue 14 measured 29,400 superseded on d25e6d9).

import { MemoryStore } from "../src/store/memory-store.ts";
import { RawExtractor } from "../src/ingest/raw-extractor.ts";
import type { OpenOptions } from "../src/index.ts";
import { seededRandom } from "../eval/metrics.ts";

const FOODS = ["rice", "beans", "fish", "tea", "cake", "bread", "apples", "pears", "cheese", "noodles", "soup", "eggs"];

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : (process.argv[i + 1] ?? fallback);
}

/** The i-th templated memory: its user and its text. */
export function templated(i: number, users: number, random: () => number): { user: string; text: string } {
  const pick = (): string => FOODS[Math.floor(random() * FOODS.length)] as string;
  return { user: `user-${i % users}`, text: `memory ${i}: I like ${pick()} and ${pick()}, not ${pick()} (${i})` };
}

async function main(): Promise<void> {
  const adds = Number(option("adds", "30000"));
  const users = Number(option("users", "200"));
  const extractor = option("extractor", "patterns");
  const options: OpenOptions = extractor === "raw" ? { extractor: new RawExtractor() } : {};
  const mem = await MemoryStore.open(":memory:", options);
  const random = seededRandom(14);
  const started = performance.now();
  let superseded = 0;
  let conflicts = 0;
  let inserted = 0;
  for (let i = 0; i < adds; i++) {
    const { user, text } = templated(i, users, random);
    const summary = await mem.add(user, text);
    inserted += summary.inserted;
    superseded += summary.superseded;
    conflicts += summary.conflicts;
  }
  const seconds = (performance.now() - started) / 1000;
  const stats = await mem.stats();
  await mem.close();
  console.log(`extractor ${stats.extractorMode}: ${adds} adds over ${users} users in ${seconds.toFixed(1)} s (${Math.round(adds / seconds)} adds/s)`);
  console.log(
    `inserted ${inserted}, superseded ${stats.superseded} (${((100 * stats.superseded) / Math.max(1, stats.total)).toFixed(2)} %), active ${stats.active}; conflict flags raised ${conflicts}; supersedes reported by add ${superseded}`,
  );
}

await main();
