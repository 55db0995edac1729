// `npm run eval:conflict`: supersede accuracy and false-supersede rate of the default judge, with slot keys from a
// model-like extractor, with the offline default extractor, and on raw text.
//
// Usage: tsx eval/conflict.ts [--no-report] [--verbose]
// Each case runs in a fresh store: the user's background facts, then the old fact, then the new one.

import { mkdirSync, writeFileSync } from "node:fs";
import { MemoryStore } from "../src/store/memory-store.ts";
import { FixedClock } from "../src/clock.ts";
import { RawExtractor } from "../src/ingest/raw-extractor.ts";
import { PatternExtractor } from "../src/ingest/pattern-extractor.ts";
import type { ConflictJudge, ExtractedFact, Extractor, MemoryEntry } from "../src/types.ts";
import {
  BACKGROUND,
  CHANGES as CHANGES_0_1,
  CHANGE_FAMILIES,
  LOOKALIKES as LOOKALIKES_0_1,
  LOOKALIKE_FAMILIES,
  type ConflictCase,
  type Fact,
} from "./conflict-cases.ts";

/** Every change case: the 44 of 0.1, then the families added in issue 14. */
const CHANGES: readonly ConflictCase[] = [...CHANGES_0_1, ...CHANGE_FAMILIES];
/** Every look-alike pair: the 42 of 0.1, then the families added in issue 14. */
const LOOKALIKES: readonly ConflictCase[] = [...LOOKALIKES_0_1, ...LOOKALIKE_FAMILIES];

/**
 * Stands in for an LLM extractor: returns each known sentence as one fact with the slot key a model
 * would give it. Unknown text is a bug in the case table, so it throws.
 */
export class ScriptedKeyExtractor implements Extractor {
  readonly mode: string = "scripted-keys";
  readonly #keys = new Map<string, string>();

  constructor(facts: Iterable<Fact>) {
    for (const fact of facts) this.#keys.set(fact.text, fact.key);
  }

  extract(_userId: string, input: string | readonly { role: string; content: string }[]): Promise<ExtractedFact[]> {
    if (typeof input !== "string") return Promise.reject(new Error("the scripted extractor takes text only"));
    const key = this.#keys.get(input);
    if (key === undefined) return Promise.reject(new Error(`no scripted key for ${JSON.stringify(input)}`));
    return Promise.resolve([{ content: input, kind: "fact", key }]);
  }
}

/** What became of a case: the old fact replaced by the new; both kept, flagged or not; the wrong entry replaced; or a fact not stored as one memory. */
export type Outcome = "replaced" | "coexist" | "kept-apart" | "wrong-replace" | "not-stored";

export interface CaseResult {
  index: number;
  kind: "change" | "lookalike";
  lang: "en" | "zh";
  topic: string;
  /** Added in issue 14 (not among the 86 cases of 0.1). */
  family: boolean;
  outcome: Outcome;
}

export interface Setup {
  name: string;
  /** `keys`: a scripted extractor with the keys a model would give; `patterns`: the offline default; `raw`: RawExtractor. */
  extractor: "keys" | "patterns" | "raw";
  judge?: ConflictJudge;
}

function allFacts(): Fact[] {
  return [...CHANGES, ...LOOKALIKES].flatMap((x) => [x.old, x.new]).concat(BACKGROUND.en, BACKGROUND.zh);
}

/** Runs one case: background, old, new; then reads what became of each entry. */
export async function runCase(setup: Setup, kase: ConflictCase): Promise<Outcome> {
  const extractor: Extractor =
    setup.extractor === "keys" ? new ScriptedKeyExtractor(allFacts()) : setup.extractor === "patterns" ? new PatternExtractor() : new RawExtractor();
  const mem = await MemoryStore.open(":memory:", { extractor, clock: new FixedClock(Date.UTC(2025, 0, 1)), ...(setup.judge ? { judge: setup.judge } : {}) });
  try {
    for (const fact of BACKGROUND[kase.lang]) await mem.add("u", fact.text);
    const first = await mem.add("u", kase.old.text);
    const second = await mem.add("u", kase.new.text);
    // Each sentence must become exactly one new memory for the case to say anything about the judge.
    if (first.inserted !== 1 || second.inserted !== 1 || first.facts.length !== 1 || second.facts.length !== 1) return "not-stored";
    const oldId = first.facts[0]!.id;
    const newId = second.facts[0]!.id;
    const entries = await mem.list("u");
    const byId = new Map(entries.map((e) => [e.id, e] as [string, MemoryEntry]));
    const old = byId.get(oldId)!;
    const added = byId.get(newId)!;
    const others = entries.filter((e) => e.id !== oldId && e.id !== newId);
    if (others.some((e) => e.status === "superseded") || added.status === "superseded") return "wrong-replace";
    if (old.status === "superseded") return old.supersededBy === newId ? "replaced" : "wrong-replace";
    return added.lifecycle?.conflict?.includes(oldId) === true ? "coexist" : "kept-apart";
  } finally {
    await mem.close();
  }
}

export async function runSetup(setup: Setup): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const [kind, cases] of [
    ["change", CHANGES],
    ["lookalike", LOOKALIKES],
  ] as const) {
    for (let i = 0; i < cases.length; i++) {
      const kase = cases[i]!;
      const family = i >= (kind === "change" ? CHANGES_0_1.length : LOOKALIKES_0_1.length);
      out.push({ index: i, kind, lang: kase.lang, topic: kase.topic, family, outcome: await runCase(setup, kase) });
    }
  }
  return out;
}

export interface Rates {
  changes: number;
  accuracy: number;
  lookalikes: number;
  falseSupersede: number;
  coexistFlags: number;
  /** Cases (either kind) where a sentence did not become exactly one memory. */
  notStored: number;
}

export function rates(results: readonly CaseResult[]): Rates {
  const changes = results.filter((r) => r.kind === "change");
  const looks = results.filter((r) => r.kind === "lookalike");
  return {
    changes: changes.length,
    accuracy: changes.filter((r) => r.outcome === "replaced").length / Math.max(1, changes.length),
    lookalikes: looks.length,
    falseSupersede: looks.filter((r) => r.outcome === "replaced" || r.outcome === "wrong-replace").length / Math.max(1, looks.length),
    coexistFlags: looks.filter((r) => r.outcome === "coexist").length / Math.max(1, looks.length),
    notStored: results.filter((r) => r.outcome === "not-stored").length,
  };
}

const pct = (v: number): string => `${(100 * v).toFixed(1)} %`;

function rateRows(name: string, results: readonly CaseResult[]): string[] {
  const rows: string[] = [];
  const slices: Array<[string, (r: CaseResult) => boolean]> = [
    ["all", () => true],
    ["English", (r) => r.lang === "en"],
    ["Chinese", (r) => r.lang === "zh"],
    ["the 86 cases of 0.1", (r) => !r.family],
    ["families added in issue 14", (r) => r.family],
  ];
  for (const [label, keep] of slices) {
    const r = rates(results.filter(keep));
    rows.push(
      `| ${name} | ${label} | ${r.changes} | ${pct(r.accuracy)} | ${r.lookalikes} | ${pct(r.falseSupersede)} | ${pct(r.coexistFlags)} | ${r.notStored} |`,
    );
  }
  return rows;
}

export function renderReport(setups: ReadonlyArray<{ setup: Setup; results: CaseResult[] }>, extra: string[]): string {
  const lines: string[] = [];
  lines.push("# Conflict handling: supersede accuracy and false supersedes");
  lines.push("");
  lines.push("Generated by `npm run eval:conflict` (`eval/conflict.ts`, cases in `eval/conflict-cases.ts`).");
  lines.push("");
  lines.push(
    `${CHANGES.length} fact-change cases (a move, a job change, a diet change, a renamed pet, …; ${CHANGES.filter((x) => x.lang === "en").length} English, ${CHANGES.filter((x) => x.lang === "zh").length} Chinese) where the new fact must replace the old, and ${LOOKALIKES.length} look-alike pairs (my sister / my brother lives in Paris, I live / I work in Berlin, …; ${LOOKALIKES.filter((x) => x.lang === "en").length} English, ${LOOKALIKES.filter((x) => x.lang === "zh").length} Chinese) where both must stay. Each case runs in a fresh store holding ${BACKGROUND.en.length} background facts of the same user, then the old fact, then the new one, with the default \`SimilarityJudge\` (threshold 0.82).`,
  );
  lines.push("");
  lines.push(
    "- **with keys**: a scripted extractor returns each sentence as one fact with the slot key an LLM extractor would give (`home_city`, `sister_city`, …): what the judge does with `LlmExtractor`.",
  );
  lines.push(
    "- **offline default**: `PatternExtractor` (no model, no key of the host's): the slot keys come from its English and Chinese pattern tables; a statement no pattern recognises has no key and is judged by similarity.",
  );
  lines.push("- **raw text**: `RawExtractor` (the default of 0.1): no keys at all, similarity only.");
  lines.push("");
  lines.push(
    "**Supersede accuracy**: change cases where the old fact ended superseded by the new one (and nothing else was). **False-supersede rate**: look-alike pairs where anything was superseded. *Coexist flagged*: look-alikes the judge marked as a possible conflict (both stay active, `lifecycle.conflict`). *Not stored*: cases where a sentence did not become exactly one memory (the extractor dropped it as small talk or split it); a change case not stored counts as not superseded. Targets for the offline default: accuracy ≥ 70 %, false supersedes ≤ 2 %.",
  );
  lines.push("");
  lines.push("| setup | slice | change cases | supersede accuracy | look-alikes | false-supersede rate | coexist flagged | not stored |");
  lines.push("|---|---|--:|--:|--:|--:|--:|--:|");
  for (const { setup, results } of setups) lines.push(...rateRows(setup.name, results));
  lines.push("");
  lines.push(...extra);
  lines.push("## Per case");
  lines.push("");
  const names = setups.map((s) => s.setup.name);
  lines.push(`| kind | # | lang | topic | old → new | ${names.join(" | ")} |`);
  lines.push(`|---|--:|---|---|---|${names.map(() => "---").join("|")}|`);
  const base = setups[0]!.results;
  base.forEach((r, i) => {
    const kase = (r.kind === "change" ? CHANGES : LOOKALIKES)[r.index]!;
    lines.push(
      `| ${r.kind} | ${r.index}${r.family ? " (new)" : ""} | ${r.lang} | ${kase.topic} | ${kase.old.text} → ${kase.new.text} | ${setups.map((s) => s.results[i]!.outcome).join(" | ")} |`,
    );
  });
  lines.push("");
  return lines.join("\n");
}

const FINDINGS = [
  "## What the numbers say",
  "",
  "- **With keys the default judge does what it should**: every change is replaced, no look-alike is. The key decides; similarity is not consulted between different keys. This is the path with `LlmExtractor` (or any extractor that returns keys).",
  '- **The offline default finds most changes by key.** `PatternExtractor` gives common personal facts a slot key from its English and Chinese pattern tables (where the user lives, employer, job, school, name, age, birthday, partner, children\'s and pets\' names, diet, favourites, allergies, languages, …), so "I live in Beijing" and "我搬到深圳了" both fill `home_city` and the judge replaces by key, across languages. Things a person has several of get one slot per value (`allergy_peanut`, `likes_jazz`, `speaks_french`) and coexist; "I\'m not allergic to cats anymore" / "我不再吃素了" fill the same slot as the positive form and retire it. On d25e6d9 (raw text, similarity only) the judge found 2 of these 73 changes (4.5 % of the 44 of 0.1, none of the new ones).',
  '- **What it misses**: changes of a slot no pattern names (switching phones or cars, which weekday the gym is, a medication, an instrument, the daily drink). These stay as two facts; the ones that differ only in a date ("on Mondays" / "on Thursdays") are flagged `coexist`.',
  '- **No false supersede without keys.** Two facts that differ in a number, an identifier, a name, a date, a negation or whose they are ("my son" / "my daughter") are never replaced by similarity; they at most coexist, and the verdict\'s reason names what differs. On d25e6d9 (raw text, the judge without this rule) something was superseded in 19 of the 31 new look-alikes (order and ticket numbers, templated memories, names, dates) and in 1 of the 42 old ones: 27.4 % of 73. `npx tsx bench/templated.bench.ts` adds 30,000 templated memories ("memory i: I like X and Y, not Z (i)", 200 users): 22,844 superseded on d25e6d9, 0 now.',
  "- **How fair the test is.** The pattern tables were written from the list of slots a personal-memory store needs, with the 86 cases of 0.1 in view; they are typical personal facts, so treat those rows as a check of coverage, not a blind test. The 29 new change cases and 31 new look-alikes were written before the tables were run on them: on that first run the offline default replaced 28 of 29 changes (96.6 %) and falsely superseded 4 of 31 look-alikes (12.9 %). The causes were fixed in general ways (a birth-year rule that matched any year; Chinese given names, now found by common surnames; a name at the start of a sentence), so the families are no longer unseen either.",
  "",
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const setups: Setup[] = [
    { name: "with keys", extractor: "keys" },
    { name: "offline default", extractor: "patterns" },
    { name: "raw text", extractor: "raw" },
  ];
  const runs: Array<{ setup: Setup; results: CaseResult[] }> = [];
  for (const setup of setups) {
    const results = await runSetup(setup);
    runs.push({ setup, results });
    const r = rates(results);
    const added = rates(results.filter((x) => x.family));
    console.log(
      `${setup.name.padEnd(15)} supersede accuracy ${pct(r.accuracy)} of ${r.changes} (new families ${pct(added.accuracy)}), false supersedes ${pct(r.falseSupersede)} of ${r.lookalikes} (new families ${pct(added.falseSupersede)}), coexist flagged ${pct(r.coexistFlags)}, not stored ${r.notStored}`,
    );
    if (args.includes("--verbose")) {
      for (const x of results)
        if ((x.kind === "change") !== (x.outcome === "replaced")) console.log(`   ${x.kind} ${x.index} ${x.lang} ${x.topic}: ${x.outcome}`);
    }
  }
  if (!args.includes("--no-report")) {
    const dir = new URL("../docs/eval/", import.meta.url);
    mkdirSync(dir, { recursive: true });
    writeFileSync(new URL("conflict.md", dir), renderReport(runs, FINDINGS));
    console.log("wrote docs/eval/conflict.md");
  }
}

await main();
