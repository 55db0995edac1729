// Checks of everything a plug-in hands the store (clock times, embedder vectors and dim, extracted facts,
// judge verdicts), made before anything is staged, so a bad plug-in can never write what the store cannot read.

import type { Clock, ConflictJudge, Embedder, EntryKind, ExtractedFact, Extractor, Verdict } from "../types.ts";
import { ENTRY_KINDS } from "../types.ts";
import { MoomemError, describeError, invalidArgument } from "../errors.ts";
import { describeValue } from "../describe-value.ts";
import { isBlankText } from "../text/blank-text.ts";
import { isValidTime } from "../clock.ts";

/** The bounds on what plug-ins may hand back (README, "Limits"). */
export const PLUGIN_LIMITS = {
  /** Largest `embedder.dim` (the largest common embedding models have 3,072 to 12,288). */
  dim: 65_536,
  /** Longest `embedder.id`, `extractor.mode` and `judge.name`: short names recorded with every store or entry. */
  nameChars: 128,
  /** Most facts one extraction may return; more is taken as a broken extractor (the add degrades). */
  facts: 1_000,
  /** Longest slot `key` of an extracted fact (keys are names such as `home_city`). */
  keyChars: 128,
  /** Longest judge `reason` kept; a longer one is cut (it is stored in the entry's metadata). */
  reasonChars: 1_000,
} as const;

// Control characters in a name would end up in file headers and terminal output.
const CONTROL = /\p{Cc}/u;

/** Reads `owner[key]`; a getter or Proxy trap that throws becomes `INVALID_ARGUMENT` for the open option `name`. */
function readMember(owner: object, key: string, name: string): unknown {
  try {
    return (owner as Record<string, unknown>)[key];
  } catch (error) {
    throw new MoomemError("INVALID_ARGUMENT", `open: reading ${name}.${key} threw (${describeError(error)})`, { cause: error });
  }
}

/** An open option that must be an object with these methods (a plug-in or a backend). */
export function checkPlugin(value: unknown, name: string, methods: readonly string[]): void {
  if (typeof value !== "object" || value === null) throw invalidArgument(`open: ${name} must be an object, got ${describeValue(value)}`);
  for (const m of methods) {
    if (typeof readMember(value, m, name) !== "function") throw invalidArgument(`open: ${name} has no ${m}() method`);
  }
}

/** An optional short name (`embedder.id`, `extractor.mode`, `judge.name`): undefined, or 1–128 printable characters. */
function readName(owner: object, key: string, name: string): string | undefined {
  const value = readMember(owner, key, name);
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > PLUGIN_LIMITS.nameChars || CONTROL.test(value)) {
    throw invalidArgument(`open: ${name}.${key} must be a short name (1-${PLUGIN_LIMITS.nameChars} printable characters), got ${describeValue(value)}`);
  }
  return value;
}

/**
 * The identity stored with the vectors: `embedder.id` (default `custom/<dim>`) and `embedder.dim`, an
 * integer from 1 to {@link PLUGIN_LIMITS.dim}. Each is read once.
 */
export function readEmbedderIdentity(embedder: Embedder): { id: string; dim: number } {
  const dim = readMember(embedder, "dim", "embedder");
  if (typeof dim !== "number" || !Number.isInteger(dim) || dim < 1 || dim > PLUGIN_LIMITS.dim) {
    throw invalidArgument(`open: embedder.dim must be an integer from 1 to ${PLUGIN_LIMITS.dim}, got ${describeValue(dim)}`);
  }
  return { id: readName(embedder, "id", "embedder") ?? `custom/${dim}`, dim };
}

/** Checks `extractor.mode` (recorded in every entry's lifecycle) once at open. */
export function checkExtractorMode(extractor: Extractor): void {
  readName(extractor, "mode", "extractor");
}

/** `extractor.verbatim`, read once at open: true, false, or absent (false). */
export function readExtractorVerbatim(extractor: Extractor): boolean {
  const value = readMember(extractor, "verbatim", "extractor");
  if (value !== undefined && typeof value !== "boolean")
    throw invalidArgument(`open: extractor.verbatim must be true, false or left out, got ${describeValue(value)}`);
  return value === true;
}

/** Checks `judge.name` (recorded in the lifecycle of judged entries) once at open. */
export function checkJudgeName(judge: ConflictJudge): void {
  readName(judge, "name", "judge");
}

/**
 * `clock.now()`, checked: a finite number of ms since epoch within the range of a `Date`. Anything else
 * (NaN, Infinity, a string, a Date, a throw) is `INVALID_ARGUMENT` before the caller stages a change, so
 * no entry ever gets a time that would make the store unreadable.
 */
export function readClock(clock: Clock): number {
  let time: unknown;
  try {
    time = clock.now();
  } catch (error) {
    throw new MoomemError("INVALID_ARGUMENT", `the clock's now() threw (${describeError(error)}); nothing was written`, { cause: error });
  }
  if (!isValidTime(time)) {
    throw invalidArgument(
      `the clock's now() returned ${describeValue(time)}; a Clock must return ms since epoch as a number within ±8.64e15 (like Date.now()); nothing was written`,
    );
  }
  return time;
}

/**
 * The vectors of one `embed` call as fresh `Float32Array`s (so the embedder keeps no handle on what the
 * store holds), or why they cannot be used. Accepted per text: a `Float32Array`, another typed array of
 * numbers or a `number[]`, of length `dim`, every component finite as a 32-bit float.
 */
export function checkEmbeddings(value: unknown, count: number, dim: number): { vectors: Float32Array[] } | { problem: string } {
  if (!Array.isArray(value)) return { problem: `embedder returned ${describeValue(value)}, expected an array of ${count} vectors` };
  if (value.length !== count) return { problem: `embedder returned ${value.length} vectors for ${count} texts` };
  const vectors: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const v: unknown = value[i];
    if (!isNumberList(v))
      return { problem: `embedder returned a bad vector: vector ${i} is ${describeValue(v)}, expected a Float32Array or an array of numbers` };
    if (v.length !== dim) return { problem: `embedder returned a bad vector: vector ${i} has length ${v.length}, expected ${dim} (embedder.dim)` };
    let copy: Float32Array;
    if (v instanceof Float32Array) {
      copy = v.slice();
    } else {
      copy = new Float32Array(dim);
      for (let j = 0; j < dim; j++) {
        const x: unknown = v[j];
        if (typeof x !== "number")
          return { problem: `embedder returned a bad vector: vector ${i} has ${describeValue(x)} at index ${j}, expected a finite number` };
        copy[j] = x;
      }
    }
    // The stored value is the 32-bit float: 1e39 fits a number but becomes Infinity. x - x is 0 unless x is NaN or ±Infinity.
    for (let j = 0; j < dim; j++) {
      const x = copy[j] as number;
      if (x - x !== 0) return { problem: `embedder returned a bad vector: vector ${i} has ${describeValue(x)} at index ${j}, expected a finite number` };
    }
    vectors.push(copy);
  }
  return { vectors };
}

function isNumberList(v: unknown): v is ArrayLike<unknown> {
  if (Array.isArray(v)) return true;
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array);
}

/**
 * The facts of one `extract` call, checked. Throws an `Error` saying what is wrong (the add then
 * degrades: the input is kept whole as an `unstructured` entry with the reason in its metadata).
 * A fact whose content is blank is no fact and is dropped; `null` for `key` or `sourceSpan` means none.
 */
export function checkFacts(value: unknown): ExtractedFact[] {
  if (!Array.isArray(value)) throw new Error(`extractor returned ${describeValue(value)}, expected an array of facts`);
  if (value.length > PLUGIN_LIMITS.facts) throw new Error(`extractor returned ${value.length} facts; the limit is ${PLUGIN_LIMITS.facts}`);
  const out: ExtractedFact[] = [];
  for (let i = 0; i < value.length; i++) {
    const f: unknown = value[i];
    if (typeof f !== "object" || f === null) throw new Error(`extractor fact ${i} is ${describeValue(f)}, not an object`);
    const { content, kind, key, sourceSpan } = f as Record<string, unknown>;
    if (typeof content !== "string") throw new Error(`extractor fact ${i} has no string content (got ${describeValue(content)})`);
    if (!ENTRY_KINDS.includes(kind as EntryKind))
      throw new Error(`extractor fact ${i} has kind ${describeValue(kind)}; expected one of ${ENTRY_KINDS.join(", ")}`);
    if (key !== undefined && key !== null && (typeof key !== "string" || isBlankText(key) || key.length > PLUGIN_LIMITS.keyChars)) {
      throw new Error(
        `extractor fact ${i} has an invalid key ${describeValue(key)} (a key is a name of 1-${PLUGIN_LIMITS.keyChars} characters, such as "home_city")`,
      );
    }
    if (sourceSpan !== undefined && sourceSpan !== null && typeof sourceSpan !== "string")
      throw new Error(`extractor fact ${i} has an invalid sourceSpan ${describeValue(sourceSpan)}`);
    if (isBlankText(content)) continue; // an empty fact is no fact
    const fact: ExtractedFact = { content: content.trim(), kind: kind as EntryKind };
    if (typeof key === "string") fact.key = key;
    if (typeof sourceSpan === "string") fact.sourceSpan = sourceSpan;
    out.push(fact);
  }
  return out;
}

/**
 * A judge's verdicts about one fact's candidates, checked. Throws an `Error` when the answer is not
 * verdicts at all (the offline judge then decides instead). Verdicts about ids that are not candidates
 * are dropped, so are later verdicts about an id already judged; a reason longer than
 * {@link PLUGIN_LIMITS.reasonChars} is cut, one that is not a string is left out.
 */
export function checkVerdicts(value: unknown, candidateIds: ReadonlySet<string>): Verdict[] {
  if (!Array.isArray(value)) throw new Error(`judge returned ${describeValue(value)}, expected an array of verdicts`);
  // One verdict per candidate is the answer; a few extra are tolerated, thousands mean something is broken.
  if (value.length > 2 * candidateIds.size + 10) throw new Error(`judge returned ${value.length} verdicts for ${candidateIds.size} candidates`);
  const out: Verdict[] = [];
  for (const v of value as unknown[]) {
    if (typeof v !== "object" || v === null) throw new Error(`judge returned a verdict that is ${describeValue(v)}, not an object`);
    const { id, decision, reason } = v as Record<string, unknown>;
    if (decision !== "replace" && decision !== "coexist" && decision !== "ignore") throw new Error(`judge returned decision ${describeValue(decision)}`);
    // A scan, not a Set: at most 2 · candidates + 10 verdicts, usually a handful.
    if (typeof id !== "string" || !candidateIds.has(id) || out.some((o) => o.id === id)) continue;
    out.push(typeof reason === "string" ? { id, decision, reason: cutReason(reason) } : { id, decision });
  }
  return out;
}

function cutReason(reason: string): string {
  if (reason.length <= PLUGIN_LIMITS.reasonChars) return reason;
  let end = PLUGIN_LIMITS.reasonChars - 1;
  const unit = reason.charCodeAt(end - 1);
  if (unit >= 0xd800 && unit <= 0xdbff) end--;
  return `${reason.slice(0, end)}…`;
}

/**
 * Runs one call of a storage backend (`load`, `compact`, `stats`, `close`): a `MoomemError` passes
 * through, any other throw or rejection (a host's backend that throws a plain `Error`) becomes
 * `IO_FAILURE` with it as `cause`.
 */
export async function callBackend<T>(location: string, what: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw backendFailure(error, location, what);
  }
}

/** {@link callBackend} for the synchronous calls (`stats`, `wantsCompaction`). */
export function callBackendSync<T>(location: string, what: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw backendFailure(error, location, what);
  }
}

function backendFailure(error: unknown, location: string, what: string): MoomemError {
  if (error instanceof MoomemError) return error;
  return new MoomemError("IO_FAILURE", `${what} of the store at ${location} failed: ${describeError(error)}`, { cause: error });
}

/** `backend.wantsCompaction()`, asked after each write; a backend that throws here is taken to want none (the next close compacts anyway). */
export function wantsCompaction(backend: { wantsCompaction(): boolean }): boolean {
  try {
    return backend.wantsCompaction() === true;
  } catch {
    return false;
  }
}

/**
 * `backend.hasUncompacted()`, asked at close: only an answer of `false` skips the compaction. A backend
 * without the method, or one that throws or answers anything else, is compacted as before.
 */
export function hasUncompacted(backend: { hasUncompacted?(): boolean }): boolean {
  if (typeof backend.hasUncompacted !== "function") return true;
  try {
    return backend.hasUncompacted() !== false;
  } catch {
    return true;
  }
}
