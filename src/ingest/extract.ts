// Step 2-3 of add: run the extractor, validate what it returns, degrade on failure, truncate.

import type { ChatMessage, EntryKind, EntryLifecycle, ExtractedFact, ExtractionReport, Extractor } from "../types.ts";
import { describeError, isMoomemError } from "../errors.ts";
import { transcriptText } from "../text/transcript.ts";
import { stripMemoryContext } from "../text/context-markers.ts";
import { checkFacts } from "../validation/plugin-checks.ts";

/** A fact ready for dedup and embedding, with what extraction records in the entry's lifecycle. */
export interface PreparedFact {
  content: string;
  kind: EntryKind;
  key?: string;
  sourceSpan?: string;
  /** `truncated` and `extractionDegraded`, when they apply. */
  lifecycle: EntryLifecycle;
  /** Set when the content was cut to `maxContentChars`: its length before (also in `lifecycle.truncated`). */
  truncated?: { originalChars: number };
}

export interface ExtractionResult {
  facts: PreparedFact[];
  /** Why extraction failed (the input was kept whole as an unstructured entry). */
  degradedReason?: string;
  /** The extractor needed its retry (so judging must not spend another model call). */
  usedRetry: boolean;
}

/** Runs the extractor; a throw or malformed output becomes a degraded, unstructured fact holding the input. */
export async function extractFacts(extractor: Extractor, userId: string, input: string | readonly ChatMessage[], maxChars: number): Promise<ExtractionResult> {
  let raw: unknown;
  try {
    const report: ExtractionReport = { retried: false };
    raw = await extractor.extract(userId, input, report);
    const facts = checkFacts(raw);
    return { facts: facts.map((f) => prepare(f, maxChars)), usedRetry: report.retried };
  } catch (error) {
    // A refused configuration (bad key, wrong model) fails every later call too: stop instead of degrading.
    if (isMoomemError(error, "PROVIDER_CONFIG")) throw error;
    // What moomem itself injected into a prompt is not the user's to remember.
    const text = typeof input === "string" ? stripMemoryContext(input).trim() : transcriptText(input);
    const reason = describeError(error);
    if (text.length === 0) return { facts: [], degradedReason: reason, usedRetry: true };
    const fact = prepare({ content: text, kind: "unstructured" }, maxChars);
    fact.lifecycle.extractionDegraded = reason;
    return { facts: [fact], degradedReason: reason, usedRetry: true };
  }
}

function prepare(fact: ExtractedFact, maxChars: number): PreparedFact {
  const lifecycle: EntryLifecycle = {};
  let content = fact.content;
  if (content.length > maxChars) {
    lifecycle.truncated = { originalChars: content.length };
    content = truncate(content, maxChars);
  }
  const out: PreparedFact = { content, kind: fact.kind, lifecycle };
  if (content !== fact.content) out.truncated = { originalChars: fact.content.length };
  if (fact.key !== undefined) out.key = fact.key;
  // The span is part of the input, so no longer than the fact's own limit.
  if (fact.sourceSpan !== undefined) out.sourceSpan = truncate(fact.sourceSpan, maxChars);
  return out;
}

/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}

/**
 * Counts consecutive failed extractions (README, "Plugging in a model provider"): the third in a row is an
 * error instead of a degraded entry; any success resets the count.
 */
export class ExtractionGuard {
  #failures = 0;
  static readonly LIMIT = 3;

  get failures(): number {
    return this.#failures;
  }

  /** Records an outcome; returns true when this failure is the one that must be refused. */
  record(failed: boolean): boolean {
    if (!failed) {
      this.#failures = 0;
      return false;
    }
    this.#failures++;
    return this.#failures >= ExtractionGuard.LIMIT;
  }
}
