// `npm run eval`: LoCoMo retrieval through MemoryStore.recall, per shared/data/locomo/PROTOCOL.md; writes docs/eval/locomo.{md,svg}.
//
// Usage: tsx eval/locomo.ts [--data <locomo.json>] [--dated] [--embedder hashing|use-lite]
//                           [--fusion zscore|rrf] [--rrf-k N] [--vector-weight W] [--min-similarity S]
//                           [--neighbor-weight W] [--candidates N]
//                           [--save <per-question.json>] [--no-report] [--quiet]
// `--embedder use-lite` plugs in an English sentence encoder (eval/use-lite-embedder.ts; installed on
// demand, then offline); its vectors are cached under eval/.cache/ (git-ignored), so reruns are cheap.
// The data is read where it lies (CC BY-NC 4.0): never copy it into this repository.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MemoryStore, type OpenOptions } from "../src/index.ts";
import { FixedClock } from "../src/clock.ts";
import { RawExtractor } from "../src/ingest/raw-extractor.ts";
import type { ConflictJudge, RecallMode } from "../src/types.ts";
import { CATEGORY_NAMES, HEADLINE_CATEGORIES, loadLocomo, type Conversation } from "./locomo-data.ts";
import { KS, mean, metricValue, pairedBootstrap, scoreQuestion, type PairedComparison, type QuestionResult } from "./metrics.ts";
import { groupedBarChart } from "./svg-chart.ts";
import { CachedEmbedder, cacheFileFor } from "./embedding-cache.ts";
import { UseLiteEmbedder } from "./use-lite-embedder.ts";

export const MODES: readonly RecallMode[] = ["keyword", "vector", "hybrid"];
const REPO = new URL("..", import.meta.url);
/** Where `--embedder use-lite` keeps its vectors between runs (git-ignored). */
const CACHE_DIR = new URL("eval/.cache/", REPO);
/** `shared/data/locomo/locomo-dev.json` beside the repository, or beside a folder above it (a git worktree lives deeper). */
export const DEFAULT_DATA: string = findData(REPO);

function findData(from: URL): string {
  const first = fileURLToPath(new URL("../shared/data/locomo/locomo-dev.json", from));
  for (let dir = new URL("..", from); ; dir = new URL("..", dir)) {
    const candidate = fileURLToPath(new URL("shared/data/locomo/locomo-dev.json", dir));
    if (existsSync(candidate)) return candidate;
    if (fileURLToPath(dir) === "/") return first;
  }
}

/** Conflict judging is off for this benchmark: a judge could retire near-duplicate evidence turns. */
const NO_JUDGE: ConflictJudge & { name: string } = { name: "off", judge: () => Promise.resolve([]) };

export interface LocomoOptions {
  data?: string;
  /** Content `"[<session date>] <speaker>: <text>"` instead of the headline `"<speaker>: <text>"`. */
  dated?: boolean;
  /** Extra store options (embedder, rrfK, candidates). The judge is always off. */
  store?: Omit<OpenOptions, "judge" | "backend">;
  modes?: readonly RecallMode[];
}

export interface LocomoRun {
  data: string;
  dated: boolean;
  embedderId: string;
  turns: number;
  memories: number;
  questions: number;
  skipped: number;
  seconds: number;
  /** Per mode, one result per question (all categories), in a fixed order. */
  results: Record<string, QuestionResult[]>;
}

/** Runs the benchmark: one user per conversation, one add per turn, one recall per question, mode and k. */
export async function runLocomo(options: LocomoOptions = {}): Promise<LocomoRun> {
  const data = options.data ?? DEFAULT_DATA;
  const conversations = loadLocomo(data);
  const modes = options.modes ?? MODES;
  const started = performance.now();
  // Raw turns, as the protocol says: every turn one memory, questions and small talk included.
  const store = await MemoryStore.open(":memory:", {
    extractor: new RawExtractor(),
    ...options.store,
    judge: NO_JUDGE,
    clock: new FixedClock(Date.UTC(2023, 0, 1)),
  });
  const results: Record<string, QuestionResult[]> = {};
  for (const mode of modes) results[mode] = [];
  let turns = 0;
  let skipped = 0;
  const diaIdsOf = new Map<string, string[]>();
  try {
    const embedder = options.store?.embedder;
    if (embedder instanceof CachedEmbedder) {
      // Fill the cache in large batches first: one add per turn would call the encoder 2,760 times.
      await embedder.embed(conversations.flatMap((c) => c.turns.map((t) => turnContent(t, options.dated === true))));
      await embedder.embed(conversations.flatMap((c) => c.questions.map((q) => q.question)));
    }
    for (const conv of conversations) {
      turns += conv.turns.length;
      skipped += conv.skipped;
      await addTurns(store, conv, options.dated === true, diaIdsOf);
    }
    const stats = await store.stats();
    if (stats.superseded !== 0) throw new Error(`protocol breach: ${stats.superseded} entries ended superseded`);
    for (const conv of conversations) {
      for (const q of conv.questions) {
        for (const mode of modes) {
          const rankedByK = new Map<number, string[][]>();
          for (const k of KS) {
            const hits = await store.recall(conv.sampleId, q.question, { topK: k, mode });
            rankedByK.set(
              k,
              hits.map((h) => diaIdsOf.get(h.id) ?? []),
            );
          }
          results[mode]!.push(scoreQuestion({ conv: conv.sampleId, index: q.index, category: q.category }, q.gold, rankedByK));
        }
      }
    }
    return {
      data,
      dated: options.dated === true,
      embedderId: store.embedderIdentity.id,
      turns,
      memories: stats.total,
      questions: results[modes[0]!]!.length,
      skipped,
      seconds: (performance.now() - started) / 1000,
      results,
    };
  } finally {
    await store.close();
  }
}

/** A turn as the protocol stores it: `<speaker>: <text>`, or `[<session date>] <speaker>: <text>` when dated. */
function turnContent(turn: Conversation["turns"][number], dated: boolean): string {
  const line = `${turn.speaker}: ${turn.text}`;
  return dated ? `[${turn.sessionDate}] ${line}` : line;
}

async function addTurns(store: MemoryStore, conv: Conversation, dated: boolean, diaIdsOf: Map<string, string[]>): Promise<void> {
  for (const turn of conv.turns) {
    const content = turnContent(turn, dated);
    const summary = await store.add(conv.sampleId, content, { metadata: { dia_id: turn.diaId } });
    // A repeated line ("Thanks!") is deduplicated into the first entry, which then stands for both turns.
    const id = summary.facts[0]?.id;
    if (id === undefined) throw new Error(`${conv.sampleId} ${turn.diaId}: the add stored nothing`);
    const ids = diaIdsOf.get(id) ?? [];
    ids.push(turn.diaId);
    diaIdsOf.set(id, ids);
  }
}

/** Results of the headline categories (1–4). */
export function headline(results: readonly QuestionResult[]): QuestionResult[] {
  return results.filter((r) => HEADLINE_CATEGORIES.includes(r.category));
}

export function pct(v: number, digits = 1): string {
  return Number.isFinite(v) ? (100 * v).toFixed(digits) : "–";
}

/** Signed points, e.g. "+4.2". */
export function points(v: number): string {
  return `${v >= 0 ? "+" : "−"}${Math.abs(100 * v).toFixed(1)}`;
}

export function describeComparison(c: PairedComparison): string {
  return `${points(c.diff)} pts [${points(c.diffLow)}, ${points(c.diffHigh)}], ratio ${c.ratio.toFixed(3)} [${c.ratioLow.toFixed(3)}, ${c.ratioHigh.toFixed(3)}], McNemar ${c.onlyB}/${c.onlyA} p=${c.mcnemarP < 0.001 ? "<0.001" : c.mcnemarP.toFixed(3)}`;
}

export function compareOn(a: readonly QuestionResult[], b: readonly QuestionResult[], metric: string): PairedComparison {
  return pairedBootstrap(
    a.map((r) => metricValue(r, metric)),
    b.map((r) => metricValue(r, metric)),
  );
}

const TABLE_METRICS = ["AnyHit@1", "AnyHit@5", "AnyHit@10", "AnyHit@25", "AnyHit@50", "AllHit@5", "EvidenceRecall@5", "EvidenceRecall@10", "MRR@10"];

function metricRow(label: string, rs: readonly QuestionResult[]): string {
  return `| ${label} | ${rs.length} | ${TABLE_METRICS.map((m) => pct(mean(rs.map((r) => metricValue(r, m))))).join(" | ")} |`;
}

function metricHeader(first: string): string[] {
  return [`| ${first} | n | ${TABLE_METRICS.join(" | ")} |`, `|---|--:|${TABLE_METRICS.map(() => "--:").join("|")}|`];
}

/** The markdown report. */
export function renderReport(run: LocomoRun, command: string): string {
  const modes = Object.keys(run.results);
  const lines: string[] = [];
  lines.push(
    `# LoCoMo retrieval (dev split${run.embedderId.startsWith("hashing") ? "" : `, ${run.embedderId.split("/")[0]}`}${run.dated ? ", dated content" : ""})`,
  );
  lines.push("");
  lines.push(
    `Generated by \`${command}\` (${run.seconds.toFixed(0)} s on this 2-core machine). Embedder \`${run.embedderId}\`, raw extractor, conflict judging off (0 entries superseded, as the protocol requires). Content per memory: ${run.dated ? "`[<session date>] <speaker>: <text>`" : "`<speaker>: <text>`"}.`,
  );
  lines.push("");
  lines.push(
    `Data: LoCoMo (Maharana et al., *Evaluating Very Long-Term Conversational Memory of LLM Agents*, ACL 2024; CC BY-NC 4.0), the 5-conversation dev split \`locomo-dev.json\`, read in place from \`../shared/data/locomo/\`. ${run.turns} dialog turns → ${run.memories} memories (identical lines are deduplicated by the store; such an entry stands for every turn it came from). ${run.questions} questions with gold evidence; ${run.skipped} skipped for having none after normalising the evidence ids. Every question is a separate \`recall\` per mode and per k (1, 5, 10, 25, 50), so the candidate depth is the store's default for that k.`,
  );
  lines.push("");
  lines.push(
    'Metrics (percent): **AnyHit@k** — at least one gold turn in the top k (the headline "Recall@k"); AllHit@k — all gold turns; EvidenceRecall@k — mean fraction of gold turns (the paper\'s R@k); MRR@10.',
  );
  lines.push("");
  lines.push("## Headline: categories 1–4, micro-averaged");
  lines.push("");
  lines.push(...metricHeader("mode"));
  for (const mode of modes) lines.push(metricRow(mode, headline(run.results[mode]!)));
  lines.push("");
  const better = betterRoute(run);
  if (better !== null) {
    const c = compareOn(headline(run.results[better]!), headline(run.results["hybrid"]!), "AnyHit@5");
    lines.push("### Hybrid vs the better single route");
    lines.push("");
    lines.push(`Fusion must never make recall worse than the better of its two routes (here **${better}**-only, by AnyHit@5). Paired on the same questions:`);
    lines.push("");
    lines.push(
      `hybrid AnyHit@5 **${pct(c.b)}** vs ${better} ${pct(c.a)}: ${describeComparison(c)}. Check hybrid ≥ 0.99 × ${better}: **${c.ratio >= 0.99 ? "met" : "NOT met"}** (point ratio ${c.ratio.toFixed(3)}; the interval's low end ${c.ratioLow.toFixed(3)}).`,
    );
    lines.push("");
  }
  if (run.results["hybrid"] !== undefined && run.results["keyword"] !== undefined) {
    const kw = headline(run.results["keyword"]);
    const hy = headline(run.results["hybrid"]);
    const c5 = compareOn(kw, hy, "AnyHit@5");
    lines.push("### Hybrid vs keyword-only, paired on the same questions");
    lines.push("");
    lines.push(
      "Paired bootstrap over questions (10,000 resamples, seed 20240, 95 % percentile intervals); McNemar counts questions only hybrid / only keyword got right (exact two-sided p).",
    );
    lines.push("");
    lines.push("| metric | keyword | hybrid | hybrid − keyword [95 % CI] | hybrid / keyword [95 % CI] | McNemar (hybrid-only / keyword-only, p) |");
    lines.push("|---|--:|--:|--:|--:|--:|");
    for (const m of ["AnyHit@1", "AnyHit@5", "AnyHit@10", "EvidenceRecall@5", "MRR@10"]) {
      const c = compareOn(kw, hy, m);
      const binary = m.startsWith("AnyHit");
      lines.push(
        `| ${m} | ${pct(c.a)} | ${pct(c.b)} | ${points(c.diff)} [${points(c.diffLow)}, ${points(c.diffHigh)}] | ${c.ratio.toFixed(3)} [${c.ratioLow.toFixed(3)}, ${c.ratioHigh.toFixed(3)}] | ${binary ? `${c.onlyB} / ${c.onlyA}, p ${c.mcnemarP < 0.001 ? "< 0.001" : `= ${c.mcnemarP.toFixed(3)}`}` : "–"} |`,
      );
    }
    lines.push("");
    const met = c5.ratio >= 1.15;
    lines.push(
      `**PRD target** (hybrid AnyHit@5 ≥ 1.15 × keyword-only): ratio **${c5.ratio.toFixed(3)}** (95 % CI ${c5.ratioLow.toFixed(3)}–${c5.ratioHigh.toFixed(3)}) — ${met ? (c5.ratioLow >= 1.15 ? "met, and the whole interval clears 1.15" : "met on the point estimate; the interval still reaches below 1.15") : "not met"}.`,
    );
    lines.push("");
  }
  if (run.results["keyword"] !== undefined && run.results["vector"] !== undefined) {
    const kw = headline(run.results["keyword"]);
    const ve = headline(run.results["vector"]);
    lines.push("### How much the two routes could add to each other");
    lines.push("");
    lines.push(
      'Questions (categories 1–4) whose gold turn is in the top k of each route alone. "Either" is what an oracle would reach that picks, per question, whichever route\'s top k holds a gold turn: an optimistic ceiling for fusing the two. When it is close to keyword-only, the vector route has little to contribute, whatever the fusion.',
    );
    lines.push("");
    lines.push("| k | both | keyword only | vector only | neither | either (oracle) | either / keyword |");
    lines.push("|--:|--:|--:|--:|--:|--:|--:|");
    for (const k of ["1", "5", "10"]) {
      let both = 0;
      let onlyK = 0;
      let onlyV = 0;
      kw.forEach((r, i) => {
        const a = r.anyHit[k] === 1;
        const b = ve[i]!.anyHit[k] === 1;
        if (a && b) both++;
        else if (a) onlyK++;
        else if (b) onlyV++;
      });
      const n = kw.length;
      lines.push(
        `| ${k} | ${both} | ${onlyK} | ${onlyV} | ${n - both - onlyK - onlyV} | ${pct((both + onlyK + onlyV) / n)} | ${((both + onlyK + onlyV) / (both + onlyK)).toFixed(3)} |`,
      );
    }
    lines.push("");
  }
  lines.push("![AnyHit@5 per category and mode](locomo.svg)");
  lines.push("");
  lines.push("## Per category");
  for (const cat of HEADLINE_CATEGORIES) {
    lines.push("");
    lines.push(`### ${cat} ${CATEGORY_NAMES[cat]}`);
    lines.push("");
    lines.push(...metricHeader("mode"));
    for (const mode of modes)
      lines.push(
        metricRow(
          mode,
          run.results[mode]!.filter((r) => r.category === cat),
        ),
      );
  }
  lines.push("");
  lines.push("## Per conversation (categories 1–4, AnyHit@5)");
  lines.push("");
  const convs = [...new Set(run.results[modes[0]!]!.map((r) => r.conv))];
  lines.push(`| mode | ${convs.join(" | ")} |`);
  lines.push(`|---|${convs.map(() => "--:").join("|")}|`);
  for (const mode of modes) {
    const rs = headline(run.results[mode]!);
    lines.push(`| ${mode} | ${convs.map((c) => pct(mean(rs.filter((r) => r.conv === c).map((r) => metricValue(r, "AnyHit@5"))))).join(" | ")} |`);
  }
  lines.push("");
  lines.push("## Category 5 (adversarial): distractor retrieved");
  lines.push("");
  lines.push(
    "Category 5 asks about something the conversation never said; its evidence is the turn a careless reader would take the wrong answer from. Retrieving it is neither good nor bad for a retriever, so it stays out of the headline.",
  );
  lines.push("");
  lines.push(...metricHeader("mode"));
  for (const mode of modes)
    lines.push(
      metricRow(
        mode,
        run.results[mode]!.filter((r) => r.category === 5),
      ),
    );
  lines.push("");
  lines.push("## Reference points (not comparable one-to-one)");
  lines.push("");
  lines.push("From PROTOCOL.md, on all 10 conversations (ours: the 5-conversation dev split; the other 5 are held out):");
  lines.push("");
  lines.push(
    "- LoCoMo paper, dense retriever DRAGON over dialog turns, EvidenceRecall@5 / @10: single-hop 68.0 / 77.7, multi-hop 35.4 / 46.6, temporal 70.4 / 77.3, open-domain 33.1 / 40.8.",
  );
  lines.push("- A plain BM25 (k1 1.2, b 0.75, stop words, no stemming): AnyHit@5 55.5, AnyHit@10 62.8 (categories 1–4, micro).");
  lines.push("");
  lines.push("At n ≈ 700 a difference of 3 points can be noise: compare configurations with the paired intervals above, not by eye.");
  lines.push("");
  return lines.join("\n");
}

/** The single route (keyword or vector) with the higher headline AnyHit@5, or null when a mode is missing. */
export function betterRoute(run: LocomoRun): "keyword" | "vector" | null {
  const { keyword, vector, hybrid } = run.results;
  if (keyword === undefined || vector === undefined || hybrid === undefined) return null;
  const at5 = (rs: QuestionResult[]): number => mean(headline(rs).map((r) => metricValue(r, "AnyHit@5")));
  return at5(vector) > at5(keyword) ? "vector" : "keyword";
}

/** Report file name (without extension) of a run: `locomo` for the default embedder, `locomo-use-lite`, `locomo-dated`, … */
export function reportName(run: LocomoRun): string {
  const parts = ["locomo"];
  if (!run.embedderId.startsWith("hashing")) parts.push(run.embedderId.split("/")[0]!.replace(/[^a-z0-9-]+/gi, "-"));
  if (run.dated) parts.push("dated");
  return parts.join("-");
}

export function renderChart(run: LocomoRun): string {
  const groups = [...HEADLINE_CATEGORIES.map((c) => `${c} ${CATEGORY_NAMES[c]}`), "micro 1–4"];
  const colors: Record<string, string> = { keyword: "#8c8c8c", vector: "#5b9bd5", hybrid: "#c0504d" };
  const series = Object.keys(run.results).map((mode) => {
    const rs = run.results[mode]!;
    const values = HEADLINE_CATEGORIES.map((c) => 100 * mean(rs.filter((r) => r.category === c).map((r) => metricValue(r, "AnyHit@5"))));
    values.push(100 * mean(headline(rs).map((r) => metricValue(r, "AnyHit@5"))));
    return { name: mode, color: colors[mode] ?? "#333", values };
  });
  return groupedBarChart({
    title: `LoCoMo dev: AnyHit@5 by category and recall mode (${run.embedderId})`,
    groups,
    series,
    yLabel: "AnyHit@5 (%)",
    yMax: 100,
    format: (v) => v.toFixed(0),
  });
}

function parseArgs(argv: string[]): { options: LocomoOptions; save?: string; report: boolean; quiet: boolean } {
  const options: LocomoOptions = {};
  const store: NonNullable<LocomoOptions["store"]> = {};
  let save: string | undefined;
  let report = true;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === "--data") options.data = value();
    else if (arg === "--dated") options.dated = true;
    else if (arg === "--rrf-k") store.rrfK = Number(value());
    else if (arg === "--vector-weight") store.vectorWeight = Number(value());
    else if (arg === "--min-similarity") store.minSimilarity = Number(value());
    else if (arg === "--neighbor-weight") store.neighborWeight = Number(value());
    else if (arg === "--fusion") store.fusion = value() as NonNullable<OpenOptions["fusion"]>;
    else if (arg === "--candidates") store.candidates = Number(value());
    else if (arg === "--embedder") {
      const name = value();
      if (name === "use-lite") store.embedder = new CachedEmbedder(new UseLiteEmbedder(), cacheFileFor(CACHE_DIR, "use-lite/energetic-ai-0.2.0/512"));
      else if (name !== "hashing") throw new Error(`--embedder must be hashing (the default) or use-lite, got ${name}`);
    } else if (arg === "--save") save = value();
    else if (arg === "--no-report") report = false;
    else if (arg === "--quiet") quiet = true;
    else throw new Error(`unknown argument ${arg}; see the usage at the top of eval/locomo.ts`);
  }
  options.store = store;
  return save === undefined ? { options, report, quiet } : { options, save, report, quiet };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const run = await runLocomo(args.options);
  const command = ["npm run eval", ...(process.argv.length > 2 ? ["--", ...process.argv.slice(2)] : [])].join(" ");
  if (!args.quiet) {
    console.log(
      `${run.turns} turns, ${run.memories} memories, ${run.questions} questions (${run.skipped} skipped), ${run.seconds.toFixed(1)} s, embedder ${run.embedderId}`,
    );
    for (const mode of Object.keys(run.results)) {
      const rs = headline(run.results[mode]!);
      console.log(
        `${mode.padEnd(8)} AnyHit@1/5/10 ${["AnyHit@1", "AnyHit@5", "AnyHit@10"].map((m) => pct(mean(rs.map((r) => metricValue(r, m))))).join(" / ")}  ER@5 ${pct(mean(rs.map((r) => metricValue(r, "EvidenceRecall@5"))))}  MRR@10 ${pct(mean(rs.map((r) => r.rr)))}`,
      );
    }
    if (run.results["hybrid"] !== undefined && run.results["keyword"] !== undefined) {
      console.log(
        `hybrid vs keyword AnyHit@5: ${describeComparison(compareOn(headline(run.results["keyword"]), headline(run.results["hybrid"]), "AnyHit@5"))}`,
      );
    }
    const better = betterRoute(run);
    if (better !== null && better !== "keyword") {
      console.log(
        `hybrid vs ${better} AnyHit@5: ${describeComparison(compareOn(headline(run.results[better]!), headline(run.results["hybrid"]!), "AnyHit@5"))}`,
      );
    }
  }
  if (args.save !== undefined) writeFileSync(args.save, JSON.stringify({ embedderId: run.embedderId, dated: run.dated, results: run.results }) + "\n");
  if (args.report) {
    const dir = new URL("docs/eval/", REPO);
    mkdirSync(dir, { recursive: true });
    const name = reportName(run);
    writeFileSync(new URL(`${name}.md`, dir), renderReport(run, command).replace("](locomo.svg)", `](${name}.svg)`));
    writeFileSync(new URL(`${name}.svg`, dir), renderChart(run));
    if (!args.quiet) console.log(`wrote docs/eval/${name}.md and docs/eval/${name}.svg`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
