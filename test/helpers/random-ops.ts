// Random calls on a store, and how to compare two stores' answers to them (per-user loading's property tests).

import type { MemoryStore } from "../../src/index.ts";

export const T0 = 1_750_000_000_000;
/** The same times for both stores, whatever each does between calls. */
export function steppingClock(): { now: () => number } {
  let t = T0;
  return { now: () => (t += 1000) };
}

/** Ids end in 4 random hex digits: two stores making the same entries differ only there. */
export function comparable(value: unknown): unknown {
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Float32Array ? Array.from(v) : v));
  return JSON.parse(text.replace(/([0-9a-f]{12})-[0-9a-f]{4}/g, "$1")) as unknown;
}

/**
 * An export's entry lines as comparable objects, ordered by user then seq: a store that loads users when
 * asked exports user by user (src/store/export-stream.ts), one holding every user in seq order.
 */
export function comparableExport(lines: readonly string[]): unknown {
  const entries = lines.slice(1).map((l) => JSON.parse(l) as { user_id: string; seq: number });
  entries.sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : a.seq - b.seq));
  return comparable(entries);
}

const USERS = ["ann", "bob", "cy", "dee", "eve"];
const WORDS = ["peanut", "allergy", "Beijing", "Shenzhen", "cat", "dog", "salary", "doctor", "wedding", "coffee", "tea", "Berlin", "Paris", "violin"];
const SENTENCES = [
  (w: string) => `I live in ${w}`,
  (w: string) => `I love ${w}`,
  (w: string) => `my favourite drink is ${w}`,
  (w: string) => `I moved to ${w}`,
  (w: string) => `remember the ${w} appointment`,
  (w: string) => `I am allergic to ${w}`,
];

export type Op = (mem: MemoryStore) => Promise<unknown>;

/** One random call (and what to compare of its answer), drawn from `random`. */
export function randomOp(random: () => number): { name: string; run: Op } {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const user = pick(USERS);
  const word = pick(WORDS);
  const k = Math.floor(random() * 8);
  const sentence = pick(SENTENCES)(word);
  const query = `${word} ${pick(WORDS)}`;
  const r = random();
  const answer = async (p: Promise<unknown>): Promise<unknown> => {
    try {
      return { ok: comparable(await p) };
    } catch (error) {
      return { error: (error as { code?: string }).code ?? String(error) };
    }
  };
  const nth = async (mem: MemoryStore, status?: "deleted" | "superseded"): Promise<string> => {
    const entries = await mem.list(user, status === undefined ? undefined : { status });
    return entries.length === 0 ? "000000000000-0000" : entries[k % entries.length]!.id;
  };
  if (r < 0.4) return { name: `add ${user}`, run: (mem) => answer(mem.add(user, sentence)) };
  if (r < 0.55) return { name: `recall ${user}`, run: (mem) => answer(mem.recall(user, query, { topK: 5 })) };
  if (r < 0.62) return { name: `list ${user}`, run: (mem) => answer(mem.list(user)) };
  if (r < 0.68) return { name: `profile ${user}`, run: (mem) => answer(mem.profile(user)) };
  if (r < 0.74) return { name: `history ${user}`, run: async (mem) => answer(mem.history(user, await nth(mem))) };
  if (r < 0.8) return { name: `forget ${user}`, run: async (mem) => answer(mem.forget(user, { id: await nth(mem) })) };
  if (r < 0.83) return { name: `forget all ${user}`, run: (mem) => answer(mem.forget(user, { all: true })) };
  if (r < 0.88) return { name: `restore ${user}`, run: async (mem) => answer(mem.restore(user, await nth(mem, k % 2 === 0 ? "deleted" : "superseded"))) };
  if (r < 0.93) {
    return {
      name: "stats",
      run: async (mem) => {
        const { total, active, superseded, deleted, unstructured, users } = await mem.stats();
        return { total, active, superseded, deleted, unstructured, users };
      },
    };
  }
  return { name: "users", run: (mem) => answer(mem.users()) };
}
