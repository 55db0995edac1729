// addMany (README, "Adding many inputs at once"): many inputs of one user through add's pipeline, with one
// embedder call and one atomic write, answering exactly as `add` called for each input in turn.

import { describe, it, expect } from "vitest";
import { HashingEmbedder, MemoryStore, RawExtractor } from "../../src/index.ts";
import type { AddInput, Embedder, ExtractedFact, Extractor } from "../../src/types.ts";
import type { AddOptions } from "../../src/store/options.ts";
import { MAX_ADD_MANY_INPUTS } from "../../src/validation/arguments.ts";
import { UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { FaultyBackend, FlakyExtractor, rejectsWith } from "../helpers/scripted.ts";
import { T0, comparable, steppingClock } from "../helpers/random-ops.ts";

/** Degrades every input holding "#fail" (as a model that failed would), else extracts like the raw extractor. */
class MarkerExtractor implements Extractor {
  readonly mode = "marker";
  calls = 0;
  extract(_userId: string, input: string | readonly { role: string; content: string }[]): Promise<ExtractedFact[]> {
    this.calls++;
    const text = typeof input === "string" ? input : input.map((m) => m.content).join("\n");
    if (text.includes("#fail")) return Promise.reject(new Error("model service unavailable (HTTP 503)"));
    return Promise.resolve(text.split(". ").map((content) => ({ content, kind: "fact" as const })));
  }
}

/** Counts embed calls and the texts each was given. */
class CountingEmbedder implements Embedder {
  readonly inner = new HashingEmbedder();
  readonly id = this.inner.id;
  readonly dim = this.inner.dim;
  readonly kind = this.inner.kind;
  calls: number[] = [];
  failing = false;
  embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts.length);
    if (this.failing) return Promise.reject(new Error("embedding service down"));
    return this.inner.embed(texts);
  }
}

const WORDS = ["Beijing", "Shenzhen", "Berlin", "tea", "coffee", "peanuts", "jazz", "violin", "cats", "Google", "Acme", "Paris"];
const SENTENCES = [
  (w: string) => `I live in ${w}`,
  (w: string) => `I moved to ${w}`,
  (w: string) => `I love ${w}`,
  (w: string) => `I don't like ${w} anymore`,
  (w: string) => `I am allergic to ${w}`,
  (w: string) => `I work at ${w}`,
  (w: string) => `my favourite drink is ${w}`,
  (w: string) => `I live in ${w}. I love ${w}`,
  (w: string) => `remember the ${w} appointment`,
  () => "thanks!",
];

/** A random input: mostly sentences (repeats included, so dedup within the batch is exercised), some transcripts, some degraded. */
function randomInput(random: () => number, failures: boolean): AddInput {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const sentence = pick(SENTENCES)(pick(WORDS));
  const r = random();
  if (failures && r < 0.12) return `${sentence} #fail`;
  if (r < 0.2) return [{ role: "assistant", content: `Noted: ${sentence}` }]; // nothing from the user
  if (r < 0.35)
    return [
      { role: "user", content: sentence },
      { role: "assistant", content: "ok" },
    ];
  return sentence;
}

/** Drops a "#fail" input where it would be the third failure in a row (that one throws; compared on its own below). */
function randomInputs(random: () => number, n: number, failures: boolean): AddInput[] {
  const inputs: AddInput[] = [];
  let run = 0;
  while (inputs.length < n) {
    const input = randomInput(random, failures);
    const failing = typeof input === "string" && input.includes("#fail");
    if (failing && run === 2) continue;
    // A transcript with nothing from the user never reaches the extractor: it neither counts nor resets.
    const silent = Array.isArray(input) && input.every((m) => m.role !== "user");
    if (!silent) run = failing ? run + 1 : 0;
    inputs.push(input);
  }
  return inputs;
}

async function everything(mem: MemoryStore): Promise<unknown> {
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  // The header carries the clock's time of the export; the entries are what is compared.
  return comparable(lines.slice(1).map((l) => JSON.parse(l) as unknown));
}

describe("addMany", () => {
  it("gives the same entries, statuses, keys, supersede links and summaries as add called for each input in turn", async () => {
    const extractors: Array<() => Extractor | undefined> = [() => undefined, () => new RawExtractor(), () => new MarkerExtractor()];
    // What the runs exercised, so the comparison cannot pass by never meeting a duplicate or a supersede.
    const seen = { duplicates: 0, superseded: 0, degraded: 0 };
    for (let run = 0; run < 36; run++) {
      const random = seededRandom(9100 + run);
      const make = extractors[run % extractors.length]!;
      const failures = run % extractors.length === 2;
      const open = (): Promise<MemoryStore> => {
        const extractor = make();
        return MemoryStore.open(":memory:", { clock: steppingClock(), ...(extractor === undefined ? {} : { extractor }) });
      };
      const one = await open();
      const many = await open();
      // Both start from the same earlier adds, so the batch dedups and supersedes against stored facts too.
      // One sequence for both parts, so no third failure in a row spans them.
      const sequence = randomInputs(random, 1 + Math.floor(random() * 36), failures);
      const before = sequence.slice(0, Math.floor(random() * Math.min(6, sequence.length)));
      const inputs = sequence.slice(before.length);
      for (const input of before) {
        await one.add("ann", input);
        await many.add("ann", input);
      }
      await one.add("bob", "I live in Paris");
      await many.add("bob", "I live in Paris");
      const options: AddOptions = {};
      if (random() < 0.3) options.metadata = { source: "bulk", n: run };
      // An observation time before the stored facts: facts that contradict them arrive already superseded.
      if (random() < 0.3) options.observedAt = T0 - 1000;
      const expected: unknown[] = [];
      for (const input of inputs) expected.push(comparable(await one.add("ann", input, options)));
      const summaries = await many.addMany("ann", inputs, options);
      for (const s of summaries) {
        seen.duplicates += s.duplicates;
        seen.superseded += s.superseded;
        seen.degraded += s.degraded ? 1 : 0;
      }
      expect(comparable(summaries), `run ${run}: summaries`).toEqual(expected);
      expect(await everything(many), `run ${run}: entries`).toEqual(await everything(one));
      const { total, active, superseded, unstructured } = await one.stats();
      expect(await many.stats(), `run ${run}: counts`).toMatchObject({ total, active, superseded, unstructured });
      await one.close();
      await many.close();
    }
    expect(seen.duplicates).toBeGreaterThan(10);
    expect(seen.superseded).toBeGreaterThan(10);
    expect(seen.degraded).toBeGreaterThan(3);
  });

  it("makes one embedder call and one durable write (chained journal batches) for the whole list", async () => {
    const embedder = new CountingEmbedder();
    const backend = new FaultyBackend();
    const mem = await MemoryStore.open("faulty", { backend, embedder, extractor: new RawExtractor(), clock: steppingClock() });
    embedder.calls = [];
    backend.groups = [];
    const inputs = Array.from({ length: MAX_ADD_MANY_INPUTS }, (_, i) => `note number ${i}: the ${WORDS[i % WORDS.length]} thing`);
    const summaries = await mem.addMany("ann", inputs);
    expect(summaries).toHaveLength(MAX_ADD_MANY_INPUTS);
    expect(summaries.every((s) => s.inserted === 1)).toBe(true);
    expect(embedder.calls).toEqual([MAX_ADD_MANY_INPUTS]);
    expect(backend.groups).toHaveLength(1);
    const batches = backend.groups[0]!;
    // More entries than one journal batch holds: chained, so the backend keeps them all or nothing.
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.map((b) => b.continues === true)).toEqual(batches.map((_, i) => i < batches.length - 1));
    expect(batches.every((b) => b.userId === "ann")).toBe(true);
    expect(batches.reduce((n, b) => n + b.entries.length, 0)).toBe(MAX_ADD_MANY_INPUTS);
    await mem.close();
  });

  it("is all or nothing: a failed write keeps none of the inputs, and the store goes on", async () => {
    const backend = new FaultyBackend();
    const mem = await MemoryStore.open("faulty", { backend, clock: steppingClock() });
    await mem.add("ann", "I live in Beijing");
    backend.failNext = 1;
    await rejectsWith(mem.addMany("ann", ["I moved to Shenzhen", "I love jazz", "I work at Acme"]), "IO_FAILURE");
    const entries = await mem.list("ann");
    expect(entries.map((e) => [e.content, e.status])).toEqual([["I live in Beijing", "active"]]);
    const [moved] = await mem.addMany("ann", ["I moved to Shenzhen"]);
    expect(moved!.superseded).toBe(1);
    await mem.close();
  });

  it("checks every input with add's rules before running anything, naming the bad one", async () => {
    const extractor = new MarkerExtractor();
    const embedder = new CountingEmbedder();
    const mem = await MemoryStore.open(":memory:", { extractor, embedder });
    embedder.calls = [];
    const sparse: string[] = [];
    sparse[1] = "fine";
    const bad: Array<[unknown, RegExp]> = [
      [["ok", "", "fine"], /inputs\[1\]: the text is empty/],
      [["ok", "fine", [{ role: "user" }]], /inputs\[2\]: transcript message 0 needs "content"/],
      [["ok", 42], /inputs\[1\]: input must be a string or an array/],
      [["ok", "fine", []], /inputs\[2\]: the transcript has no messages/],
      // A hole in a sparse array is refused like undefined.
      [sparse, /inputs\[0\]: input must be/],
      ["I live in Paris", /addMany: inputs must be an array/],
      [null, /addMany: inputs must be an array/],
      [Array.from({ length: MAX_ADD_MANY_INPUTS + 1 }, () => "x"), /the limit is 1000 per call/],
    ];
    for (const [inputs, message] of bad) {
      const error = await rejectsWith(mem.addMany("ann", inputs as AddInput[]), "INVALID_ARGUMENT");
      expect(error.message).toMatch(message);
    }
    const throwing = new Proxy(["x"], {
      get() {
        throw new Error("trap");
      },
    });
    await rejectsWith(mem.addMany("ann", throwing), "INVALID_ARGUMENT");
    await rejectsWith(mem.addMany("", ["x"]), "INVALID_USER_ID");
    await rejectsWith(mem.addMany("ann", ["x"], { metdata: {} } as AddOptions), "INVALID_ARGUMENT");
    await rejectsWith(mem.addMany("ann", ["x"], { observedAt: Number.NaN }), "INVALID_ARGUMENT");
    expect(extractor.calls).toBe(0);
    expect(embedder.calls).toEqual([]);
    expect(await mem.addMany("ann", [])).toEqual([]);
    expect((await mem.stats()).total).toBe(0);
    await mem.close();
    await rejectsWith(mem.addMany("ann", ["x"]), "STORE_CLOSED");
  });

  it("an empty list and a list of transcripts with nothing from the user write nothing", async () => {
    const backend = new FaultyBackend();
    const mem = await MemoryStore.open("faulty", { backend });
    backend.groups = [];
    expect(await mem.addMany("ann", [])).toEqual([]);
    const [silent] = await mem.addMany("ann", [[{ role: "assistant", content: "I live in Paris" }]]);
    expect(silent).toMatchObject({ extracted: 0, inserted: 0 });
    expect(silent!.nothingExtracted).toBeTypeOf("string");
    expect(backend.groups).toEqual([]);
    await mem.close();
  });

  it("the third failed extraction in a row refuses the whole call; a failed embedding degrades only inputs with facts", async () => {
    const extractor = new FlakyExtractor();
    const embedder = new CountingEmbedder();
    const mem = await MemoryStore.open(":memory:", { extractor, embedder });
    const error = await rejectsWith(mem.addMany("ann", ["one", "two", "three", "four"]), "EXTRACTION_FAILURE");
    expect(error.message).toMatch(/inputs\[2\]/);
    expect((await mem.stats()).total).toBe(0);
    extractor.failing = false;
    embedder.failing = true;
    const summaries = await mem.addMany("ann", ["I love tea", [{ role: "assistant", content: "hello" }], "I love jazz"]);
    expect(summaries.map((s) => s.degraded)).toEqual([true, false, true]);
    expect((await mem.list("ann")).map((e) => [e.content, e.lifecycle?.embeddingDegraded !== undefined])).toEqual([
      ["I love tea", true],
      ["I love jazz", true],
    ]);
    await mem.close();
  });

  it("loads a user not in memory first, and dedups and supersedes against what it held", async () => {
    const backend = new UserLoadingMemoryBackend();
    const first = await MemoryStore.open("loading", { backend, clock: steppingClock() });
    await first.add("ann", "I live in Beijing");
    await first.add("bob", "I love tea");
    await first.close();
    const mem = await MemoryStore.open("loading", { backend, clock: steppingClock(), maxLoadedUsers: 1 });
    await mem.recall("bob", "tea");
    const summaries = await mem.addMany("ann", ["I live in Beijing", "I moved to Shenzhen", "I love jazz"]);
    expect(summaries.map((s) => [s.duplicates, s.inserted, s.superseded])).toEqual([
      [1, 0, 0],
      [0, 1, 1],
      [0, 1, 0],
    ]);
    expect((await mem.stats()).loadedUsers).toBe(1);
    await mem.close();
    const again = await MemoryStore.open("loading", { backend });
    expect((await again.list("ann")).map((e) => [e.content, e.status])).toEqual([
      ["I live in Beijing", "superseded"],
      ["I moved to Shenzhen", "active"],
      ["I love jazz", "active"],
    ]);
    await again.close();
  });

  it("is refused on a read-only store", async () => {
    const backend = new FaultyBackend();
    const mem = await MemoryStore.open("faulty", { backend, readOnly: true });
    await rejectsWith(mem.addMany("ann", ["I love tea"]), "READ_ONLY");
    await mem.close();
  });
});
