// A fixed add/forget/recall scenario whose results must be identical on Node, Bun, Deno and Chromium.
//
// Used by test/runtime-parity.test.ts (compares with test/fixtures/parity-expected.json) and by
// scripts/parity-fixture.ts (writes that file, once, on Node). It exercises everything whose output
// could drift between JavaScript engines: Intl.Segmenter word breaks (Latin, Chinese, Japanese),
// NFKC, the hashing embedder's float math, BM25's logarithms, RRF and tie-breaking.

import { MemoryStore } from "../src/store/memory-store.ts";
import { FixedClock } from "../src/clock.ts";
import type { RecallMode } from "../src/types.ts";

/** One recall hit as compared across runtimes: ids are random, so content stands in for them. */
export interface ParityHit {
  content: string;
  status: string;
  score: number;
  vectorRank: number | null;
  keywordRank: number | null;
}

export interface ParityResult {
  adds: { user: string; text: string; inserted: number; duplicates: number; superseded: number }[];
  recalls: { user: string; query: string; mode: RecallMode; hits: ParityHit[] }[];
  lists: { user: string; entries: { content: string; status: string; supersededBy: string | null }[] }[];
  counts: { total: number; active: number; superseded: number; deleted: number; unstructured: number; users: number };
}

const START = Date.UTC(2025, 0, 6, 9, 0, 0);

const ADDS: [user: string, text: string][] = [
  ["alice", "I'm allergic to peanuts"],
  ["alice", "I live in Berlin and work as a nurse"],
  ["alice", "My daughter Mia plays the violin"],
  ["alice", "I prefer tea over coffee in the morning"],
  ["alice", "We are planning a trip to Kyoto in April"],
  ["alice", "My favourite food is spicy ramen"],
  ["alice", "I'm allergic to peanuts"],
  ["alice", "I live in Hamburg and work as a nurse"],
  ["alice", "Meeting with Dr. Weber on Friday at 10:00"],
  ["alice", "Ｆｕｌｌｗｉｄｔｈ text and café naïve résumé"],
  ["bob", "我住在上海，喜欢吃辣的火锅"],
  ["bob", "我对花生过敏"],
  ["bob", "下个月我要去北京出差"],
  ["bob", "私は東京で働いています"],
  ["bob", "週末は猫と一緒に映画を見ます"],
  ["bob", "I also speak some English and like jazz"],
  ["bob", "我住在深圳，喜欢吃辣的火锅"],
  ["carol", "The quick brown fox jumps over the lazy dog"],
  ["carol", "fox fox fox"],
  ["carol", "Dogs are loyal; foxes are clever"],
];

const QUERIES: [user: string, query: string][] = [
  ["alice", "what should I cook for lunch?"],
  ["alice", "where does she live"],
  ["alice", "peanut allergy"],
  ["alice", "music lessons for my kid"],
  ["alice", "travel plans Japan"],
  ["alice", "cafe resume fullwidth"],
  ["alice", "doctor appointment"],
  ["alice", "zzzz qqqq"],
  ["bob", "他住在哪里"],
  ["bob", "花生"],
  ["bob", "東京の仕事"],
  ["bob", "猫"],
  ["bob", "jazz music"],
  ["carol", "fox"],
  ["carol", "lazy dogs"],
];

const MODES: RecallMode[] = ["hybrid", "vector", "keyword"];

/** Scores are rounded so the comparison is about results, not the last bits of a float sum. */
function round(score: number): number {
  return Math.round(score * 1e9) / 1e9;
}

/** Runs the scenario on a fresh in-memory store with a fixed clock. */
export async function runParityScenario(): Promise<ParityResult> {
  const clock = new FixedClock(START);
  const mem = await MemoryStore.open(":memory:", { clock });
  try {
    const result: ParityResult = {
      adds: [],
      recalls: [],
      lists: [],
      counts: { total: 0, active: 0, superseded: 0, deleted: 0, unstructured: 0, users: 0 },
    };
    for (const [user, text] of ADDS) {
      const summary = await mem.add(user, text);
      result.adds.push({ user, text, inserted: summary.inserted, duplicates: summary.duplicates, superseded: summary.superseded });
      clock.advance(60_000);
    }
    // Forget one entry, so recall must skip deleted ones everywhere too.
    const carol = await mem.list("carol");
    const fox3 = carol.find((e) => e.content === "fox fox fox");
    if (fox3 === undefined) throw new Error("scenario entry missing");
    await mem.forget("carol", { id: fox3.id });

    for (const [user, query] of QUERIES) {
      for (const mode of MODES) {
        const hits = await mem.recall(user, query, { topK: 5, mode });
        result.recalls.push({
          user,
          query,
          mode,
          hits: hits.map((h) => ({
            content: h.content,
            status: h.status,
            score: round(h.score),
            vectorRank: h.vectorRank ?? null,
            keywordRank: h.keywordRank ?? null,
          })),
        });
      }
    }
    for (const user of ["alice", "bob", "carol"]) {
      const entries = await mem.list(user);
      const contentOf = new Map(entries.map((e) => [e.id, e.content]));
      result.lists.push({
        user,
        entries: entries.map((e) => ({
          content: e.content,
          status: e.status,
          supersededBy: e.supersededBy === undefined ? null : (contentOf.get(e.supersededBy) ?? "?"),
        })),
      });
    }
    const stats = await mem.stats();
    result.counts = {
      total: stats.total,
      active: stats.active,
      superseded: stats.superseded,
      deleted: stats.deleted,
      unstructured: stats.unstructured,
      users: stats.users,
    };
    return result;
  } finally {
    await mem.close();
  }
}
