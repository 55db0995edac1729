// Conflict judge that asks a chat model whether a new fact replaces, coexists with or ignores stored ones (README, "Plugging in a model provider").

import { describeError, MoomemError } from "../../errors.ts";
import type { ConflictJudge, ExtractedFact, MemoryEntry, Verdict } from "../../types.ts";
import { resolveChat, type ChatFunction, type LlmOptions } from "./chat.ts";
import { buildJudgeMessages, type JudgeItem } from "./prompts.ts";
import { parseModelJson, validateVerdicts } from "./schema.ts";
import { providerConfigError } from "./provider-config.ts";

/** Settings of {@link LlmJudge}: `{ chat }` or `{ baseURL, apiKey?, model, timeoutMs?, fetch?, … }`. */
export type LlmJudgeOptions = LlmOptions;

/** Reason recorded for a candidate the model gave no verdict about. */
export const NO_VERDICT_REASON = "the judge gave no verdict for this memory";

/**
 * Judges conflicts with a chat model: per candidate `replace` (the new fact makes it no longer true),
 * `coexist` (same topic, possibly contradictory; both kept and flagged) or `ignore`, each with a short reason.
 *
 * Exactly one model call per `judge` — or per `judgeAll`, which judges every fact of one add together so the
 * add stays within its 2-call budget — and no retry (the budget has no room for one). A failed call or an answer
 * that breaks the schema rejects with `EXTRACTION_FAILURE`; the store then falls back to the offline
 * `SimilarityJudge`. A candidate the model skipped counts as `ignore` (supersede stays conservative).
 *
 * @example
 * ```ts
 * const judge = new LlmJudge({ baseURL: "https://api.deepseek.com/v1", apiKey: process.env.DEEPSEEK_API_KEY, model: "deepseek-chat" });
 * ```
 */
export class LlmJudge implements ConflictJudge {
  readonly name: string = "llm";
  /** The chat function this judge calls. */
  readonly chat: ChatFunction;

  constructor(options: LlmJudgeOptions) {
    this.chat = resolveChat(options, "LlmJudge");
  }

  /** Verdicts about `candidates` (one per candidate, in their order); no model call when there are none. */
  async judge(fact: ExtractedFact, candidates: readonly MemoryEntry[]): Promise<Verdict[]> {
    const [verdicts] = await this.judgeAll([{ fact, candidates }]);
    return verdicts ?? [];
  }

  /**
   * Judges several facts in one model call; result `i` holds the verdicts about `items[i].candidates`, in order.
   * Facts without candidates get `[]`; when no fact has candidates no call is made.
   */
  async judgeAll(items: readonly JudgeItem[]): Promise<Verdict[][]> {
    checkItems(items);
    const { messages, numbering } = buildJudgeMessages(items);
    const results: Verdict[][] = items.map(() => []);
    if (numbering.length === 0) return results;
    let answer: string;
    try {
      answer = await this.chat(messages, { json: true });
    } catch (error) {
      const reason = describeError(error);
      throw (
        providerConfigError("LlmJudge", reason, error) ?? new MoomemError("EXTRACTION_FAILURE", `LlmJudge: the model call failed: ${reason}`, { cause: error })
      );
    }
    const parsed = parseModelJson(answer);
    const checked = parsed.ok ? validateVerdicts(parsed.value, numbering.length) : parsed;
    if (!checked.ok) throw new MoomemError("EXTRACTION_FAILURE", `LlmJudge: unusable answer from the model: ${checked.problem}`);
    const byNumber = new Map(checked.value.map((verdict) => [verdict.candidate, verdict]));
    numbering.forEach(({ item, id }, index) => {
      const given = byNumber.get(index + 1);
      const verdict: Verdict = { id, decision: given?.decision ?? "ignore" };
      const reason = given === undefined ? NO_VERDICT_REASON : given.reason;
      if (reason !== undefined) verdict.reason = reason;
      results[item]?.push(verdict);
    });
    return results;
  }
}

function checkItems(items: unknown): void {
  if (!Array.isArray(items)) {
    throw new MoomemError("INVALID_ARGUMENT", `LlmJudge: expected an array of { fact, candidates } (got ${typeof items}).`);
  }
  items.forEach((item: unknown, i) => {
    const { fact, candidates } = (typeof item === "object" && item !== null ? item : {}) as { fact?: unknown; candidates?: unknown };
    const content = (fact as { content?: unknown } | undefined)?.content;
    if (typeof content !== "string" || content.trim() === "") {
      throw new MoomemError("INVALID_ARGUMENT", `LlmJudge: item ${i} needs a fact with non-empty string content.`);
    }
    if (!Array.isArray(candidates)) {
      throw new MoomemError("INVALID_ARGUMENT", `LlmJudge: item ${i} needs a candidates array of stored entries.`);
    }
    candidates.forEach((entry: unknown, j) => {
      const { id, content: text } = (typeof entry === "object" && entry !== null ? entry : {}) as { id?: unknown; content?: unknown };
      if (typeof id !== "string" || typeof text !== "string") {
        throw new MoomemError("INVALID_ARGUMENT", `LlmJudge: item ${i} candidate ${j} must be an entry with string id and content.`);
      }
    });
  });
}
