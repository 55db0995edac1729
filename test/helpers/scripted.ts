// Test doubles shared by the store suites: scripted extractors, judges and a backend that can fail.

import type { ConflictJudge, ExtractedFact, ExtractionReport, Extractor, Verdict } from "../../src/types.ts";
import type { Batch, PersistenceBackend } from "../../src/persistence/backend.ts";
import { MemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { MoomemError } from "../../src/errors.ts";

/** Extracts by rules: lines matching a pattern become facts with a key; everything else is small talk. */
export class RuleExtractor implements Extractor {
  readonly mode = "rules";
  calls = 0;
  constructor(private readonly rules: Array<{ pattern: RegExp; key: string; kind?: ExtractedFact["kind"] }>) {}

  extract(_userId: string, input: string | readonly { role: string; content: string }[]): Promise<ExtractedFact[]> {
    this.calls++;
    const text =
      typeof input === "string"
        ? input
        : input
            .filter((m) => m.role === "user")
            .map((m) => m.content)
            .join("\n");
    const facts: ExtractedFact[] = [];
    for (const line of text.split("\n")) {
      for (const rule of this.rules) {
        if (rule.pattern.test(line)) facts.push({ content: line.trim(), kind: rule.kind ?? "fact", key: rule.key });
      }
    }
    return Promise.resolve(facts);
  }
}

/** An extractor that fails while `failing` is true (and can report a retry). */
export class FlakyExtractor implements Extractor {
  readonly mode = "flaky";
  failing = true;
  retried = false;
  extract(_userId: string, input: string | readonly { role: string; content: string }[], report?: ExtractionReport): Promise<ExtractedFact[]> {
    if (report && this.retried) report.retried = true;
    if (this.failing) return Promise.reject(new Error("model service unavailable (HTTP 503)"));
    const text = typeof input === "string" ? input : input.map((m) => m.content).join(" ");
    return Promise.resolve([{ content: text, kind: "fact" }]);
  }
}

/** A judge answering from a script: `decide(fact, candidate)` per candidate. */
export class ScriptedJudge implements ConflictJudge {
  readonly name = "scripted";
  calls = 0;
  constructor(private readonly decide: (fact: string, candidate: string) => Verdict["decision"]) {}
  judge(fact: ExtractedFact, candidates: Array<{ id: string; content: string }>): Promise<Verdict[]> {
    this.calls++;
    return Promise.resolve(
      candidates.map((c) => ({ id: c.id, decision: this.decide(fact.content, c.content), reason: `scripted: ${fact.content} vs ${c.content}` })),
    );
  }
}

/** A memory backend whose appends can be made to fail, and which records each group it was given. */
export class FaultyBackend implements PersistenceBackend {
  readonly inner = new MemoryBackend("faulty");
  readonly location = "faulty";
  failNext = 0;
  groups: Batch[][] = [];
  /** Delay each append by this many ms (so concurrent writes pile up into groups). */
  delayMs = 0;
  load(): ReturnType<PersistenceBackend["load"]> {
    return this.inner.load();
  }
  async append(batches: readonly Batch[]): Promise<void> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failNext > 0) {
      this.failNext--;
      throw new MoomemError("IO_FAILURE", "injected: no space left on device (ENOSPC)");
    }
    this.groups.push([...batches]);
    return this.inner.append(batches);
  }
  /** Ask for compaction after every append. */
  eager = false;
  failCompact = 0;
  compactions = 0;
  wantsCompaction(): boolean {
    return this.eager;
  }
  compact(source: Parameters<PersistenceBackend["compact"]>[0]): Promise<void> {
    if (this.failCompact > 0) {
      this.failCompact--;
      return Promise.reject(new MoomemError("IO_FAILURE", "injected: compaction failed (EIO)"));
    }
    this.compactions++;
    return this.inner.compact(source);
  }
  stats(): ReturnType<PersistenceBackend["stats"]> {
    return this.inner.stats();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Asserts that `promise` rejects with a MoomemError of this code; returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<MoomemError> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof MoomemError)) throw new Error(`expected MoomemError ${code}, got ${String(error)}`, { cause: error });
    if (error.code !== code) throw new Error(`expected code ${code}, got ${error.code}: ${error.message}`, { cause: error });
    return error;
  }
  throw new Error(`expected a rejection with ${code}, but it resolved`);
}

/** Asserts that `fn` throws a MoomemError of this code (whose message contains or matches `text`, when given). */
export function throwsWith(fn: () => unknown, code: string, text?: string | RegExp): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof MoomemError)) throw new Error(`expected MoomemError ${code}, got ${String(error)}`, { cause: error });
    if (error.code !== code) throw new Error(`expected code ${code}, got ${error.code}: ${error.message}`, { cause: error });
    const mentioned = text === undefined || (typeof text === "string" ? error.message.includes(text) : text.test(error.message));
    if (!mentioned) throw new Error(`expected the message to mention ${String(text)}: ${error.message}`, { cause: error });
    return;
  }
  throw new Error(`expected ${code}${text === undefined ? "" : ` mentioning ${String(text)}`}, but nothing was thrown`);
}

/** Twenty lines of small talk with no fact about the user (AC-03). */
export const CHIT_CHAT: readonly string[] = [
  "hi there!",
  "how are you today?",
  "lol that's funny",
  "thanks a lot",
  "good morning",
  "ok cool",
  "haha",
  "what a day",
  "see you later",
  "nice weather huh",
  "I'm so tired right now",
  "hmm let me think",
  "bye!",
  "that's great",
  "you're welcome",
  "sure",
  "no worries",
  "wow",
  "really?",
  "awesome",
];
