// Paired before/after comparison of two saved LoCoMo runs (`npm run eval -- --save x.json`), per mode, on the same questions.
//
// Usage: tsx eval/compare.ts <before.json> <after.json> [--metric AnyHit@5] [--markdown]

import { readFileSync } from "node:fs";
import { headline, pct, points } from "./locomo.ts";
import { mean, metricValue, pairedBootstrap } from "./metrics.ts";
import type { QuestionResult } from "./metrics.ts";

interface Saved {
  embedderId: string;
  results: Record<string, QuestionResult[]>;
}

function load(path: string): Saved {
  return JSON.parse(readFileSync(path, "utf8")) as Saved;
}

/** Lines of a comparison table: per mode, before → after with the paired 95 % interval and per-conversation wins. */
export function compareRuns(before: Saved, after: Saved, metrics: readonly string[], markdown: boolean): string[] {
  const lines: string[] = [];
  if (markdown) {
    lines.push("| mode | metric | before | after | after − before [95 % CI] | McNemar (gained / lost, p) | conversations up / down |");
    lines.push("|---|---|--:|--:|--:|--:|--:|");
  }
  for (const mode of Object.keys(after.results)) {
    const a = before.results[mode];
    const b = after.results[mode];
    if (a === undefined || b === undefined) continue;
    const ha = headline(a);
    const hb = headline(b);
    for (let i = 0; i < ha.length; i++) {
      if (ha[i]!.conv !== hb[i]!.conv || ha[i]!.index !== hb[i]!.index) throw new Error("the runs are not on the same questions");
    }
    for (const metric of metrics) {
      const c = pairedBootstrap(
        ha.map((r) => metricValue(r, metric)),
        hb.map((r) => metricValue(r, metric)),
      );
      const convs = [...new Set(ha.map((r) => r.conv))];
      let up = 0;
      let down = 0;
      for (const conv of convs) {
        const d =
          mean(hb.filter((r) => r.conv === conv).map((r) => metricValue(r, metric))) -
          mean(ha.filter((r) => r.conv === conv).map((r) => metricValue(r, metric)));
        if (d > 1e-12) up++;
        else if (d < -1e-12) down++;
      }
      const binary = !metric.startsWith("EvidenceRecall") && metric !== "MRR@10";
      const mc = binary ? `${c.onlyB} / ${c.onlyA}, p ${c.mcnemarP < 0.001 ? "< 0.001" : `= ${c.mcnemarP.toFixed(3)}`}` : "–";
      const ci = `${points(c.diff)} [${points(c.diffLow)}, ${points(c.diffHigh)}]`;
      if (markdown) lines.push(`| ${mode} | ${metric} | ${pct(c.a)} | ${pct(c.b)} | ${ci} | ${mc} | ${up} / ${down} |`);
      else lines.push(`${mode.padEnd(8)} ${metric.padEnd(17)} ${pct(c.a)} → ${pct(c.b)}  ${ci}  McNemar ${mc}  convs ${up}/${down}`);
    }
  }
  return lines;
}

const args = process.argv.slice(2);
const files = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--metric");
const metrics: string[] = [];
for (let i = 0; i < args.length; i++) if (args[i] === "--metric") metrics.push(args[i + 1] ?? "");
if (files.length !== 2) {
  console.error("usage: tsx eval/compare.ts <before.json> <after.json> [--metric AnyHit@5]… [--markdown]");
  process.exit(2);
}
const before = load(files[0]!);
const after = load(files[1]!);
console.log(`${before.embedderId} → ${after.embedderId}`);
for (const line of compareRuns(before, after, metrics.length > 0 ? metrics : ["AnyHit@1", "AnyHit@5", "AnyHit@10"], args.includes("--markdown")))
  console.log(line);
