// Step 6 of add: ask the conflict judge about candidates, validate its verdicts, fall back offline.

import type { ConflictJudge, Verdict } from "../types.ts";
import { describeError } from "../errors.ts";
import type { JudgeCandidate, SimilarityJudge } from "./similarity-judge.ts";
import type { PreparedFact } from "./extract.ts";

export interface JudgeOutcome {
  verdicts: Verdict[];
  /** Name of the judge whose verdicts these are (`similarity-fallback` when the configured one failed or was skipped). */
  judge: string;
  /** Why the configured judge was not used. */
  fallbackReason?: string;
}

/**
 * Asks `judge` about `candidates`; when it throws, returns malformed verdicts,
 * or must be skipped (`skip`: the add already spent its model budget), the
 * offline `fallback` decides instead. Verdicts about ids that are not
 * candidates are dropped; a candidate with no verdict is ignored.
 */
export async function judgeFact(
  judge: ConflictJudge,
  fallback: SimilarityJudge,
  fact: PreparedFact,
  embedding: Float32Array | null,
  candidates: JudgeCandidate[],
  skip: string | null,
): Promise<JudgeOutcome> {
  const input = { content: fact.content, kind: fact.kind, ...(fact.key !== undefined ? { key: fact.key } : {}), ...(embedding !== null ? { embedding } : {}) };
  const name = judge.name ?? "custom";
  if (candidates.length === 0) return { verdicts: [], judge: name };
  if (skip === null || judge === fallback) {
    try {
      const verdicts: unknown = await judge.judge(input, candidates.map((c) => ({ ...c, metadata: structuredClone(c.metadata) })));
      return { verdicts: checkVerdicts(verdicts, candidates), judge: name };
    } catch (error) {
      skip = `judge failed: ${describeError(error)}`;
    }
  }
  return { verdicts: await fallback.judge(input, candidates), judge: "similarity-fallback", fallbackReason: skip };
}

function checkVerdicts(value: unknown, candidates: JudgeCandidate[]): Verdict[] {
  if (!Array.isArray(value)) throw new Error(`judge returned ${typeof value}, expected an array of verdicts`);
  const ids = new Set(candidates.map((c) => c.id));
  const out: Verdict[] = [];
  for (const v of value as unknown[]) {
    if (typeof v !== "object" || v === null) throw new Error("judge returned a verdict that is not an object");
    const { id, decision, reason } = v as Record<string, unknown>;
    if (decision !== "replace" && decision !== "coexist" && decision !== "ignore") throw new Error(`judge returned decision ${JSON.stringify(decision)}`);
    if (typeof id !== "string" || !ids.has(id)) continue;
    out.push(typeof reason === "string" ? { id, decision, reason } : { id, decision });
  }
  return out;
}
