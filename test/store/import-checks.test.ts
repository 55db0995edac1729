import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend, type MemoryEntry } from "../../src/index.ts";
import { rejectsWith } from "../helpers/scripted.ts";
import { DENSE4, collect, denseBase64, entryJson, header, objects, sparseJson, toLines, type Json } from "../helpers/export-lines.ts";

const ID = { id: DENSE4.id!, dim: DENSE4.dim };

/** A store of user "a" with two entries, on a backend that can be reopened. */
async function storeWithA(backend = new MemoryBackend()): Promise<{ mem: MemoryStore; backend: MemoryBackend; a: MemoryEntry[] }> {
  const mem = await MemoryStore.open("import-checks", { backend, embedder: DENSE4 });
  await mem.add("a", "I live in Beijing");
  await mem.add("a", "I play the cello");
  return { mem, backend, a: await mem.list("a") };
}

/** What the store answers for users a and b (the import must not change it when it fails). */
async function answers(mem: MemoryStore): Promise<unknown> {
  const s = await mem.stats();
  return {
    a: await mem.list("a"),
    b: await mem.list("b"),
    recallA: await mem.recall("a", "where do I live"),
    recallB: await mem.recall("b", "where do I live"),
    counts: [s.total, s.active, s.superseded, s.deleted, s.unstructured, s.users],
  };
}

async function expectRejected(mem: MemoryStore, values: readonly unknown[], pattern: RegExp, options?: { partial: boolean }): Promise<void> {
  const before = await answers(mem);
  const error = await rejectsWith(options === undefined ? mem.import(toLines(values)) : mem.import(toLines(values), options), "INVALID_ARGUMENT");
  expect(error.message).toMatch(pattern);
  expect(error.message).toMatch(/nothing was imported/);
  expect(await answers(mem)).toEqual(before);
}

describe("import: vectors", () => {
  const bad: Array<[string, unknown]> = [
    ["dense base64 holding NaN", denseBase64([1, Number.NaN, 0, 0])],
    ["dense base64 holding Infinity", denseBase64([1, 0, Number.POSITIVE_INFINITY, 0])],
    ["dense base64 holding -Infinity", denseBase64([Number.NEGATIVE_INFINITY, 0, 0, 0])],
    ["sparse holding NaN", sparseJson(4, [[1, Number.NaN]])],
    ["a v1 number array that overflows float32", [1e300, 0, 0, 0]],
    ["a vector of the wrong length", denseBase64([1, 0, 0])],
  ];
  for (const [what, embedding] of bad) {
    it(`rejects ${what} and leaves no trace, in memory or after a reopen`, async () => {
      const { mem, backend } = await storeWithA();
      const lines = [header(ID, 2), entryJson("000000000009-0001", "b", "I live in Paris"), entryJson("000000000009-0002", "b", "I like tea", { embedding })];
      await expectRejected(mem, lines, /line 3/);
      // a dense embedder: recall runs the vector route over b's (empty) index
      expect(await mem.recall("b", "tea", { mode: "vector" })).toEqual([]);
      const before = await answers(mem);
      await mem.close();
      const again = await MemoryStore.open("import-checks", { backend, embedder: DENSE4 });
      expect(await answers(again)).toEqual(before);
      await again.close();
    });
  }
});

describe("import: ids never collide with new ones", () => {
  it("new ids start past the seq in every imported id, also after a reopen", async () => {
    const { mem, backend } = await storeWithA();
    const imported = ["000000000005-0001", "00000000000c-abcd", "not-a-seq-id"];
    await mem.import(toLines([header(ID, 3), ...imported.map((id, i) => entryJson(id, "b", `imported fact ${i}`))]));
    const fresh = async (store: MemoryStore): Promise<string[]> => {
      const s = await store.add("b", `new fact ${Math.random()}`);
      return s.facts.map((f) => f.id);
    };
    for (let i = 0; i < 4; i++) for (const id of await fresh(mem)) expect(parseInt(id.slice(0, 12), 16)).toBeGreaterThan(0xc);
    await mem.close();
    const again = await MemoryStore.open("import-checks", { backend, embedder: DENSE4 });
    for (let i = 0; i < 4; i++) for (const id of await fresh(again)) expect(parseInt(id.slice(0, 12), 16)).toBeGreaterThan(0xc);
    const b = await again.list("b");
    for (const [i, id] of imported.entries()) expect(b.find((e) => e.id === id)?.content).toBe(`imported fact ${i}`);
    await again.close();
  });
});

describe("import: references", () => {
  it("refuses a superseded_by that names another user's entry, or nothing", async () => {
    const { mem, a } = await storeWithA();
    const aId = a[0]!.id;
    await expectRejected(
      mem,
      [header(ID, 1), entryJson("0000000000b1-0001", "b", "I live in Rome", { status: "superseded", superseded_by: aId })],
      /another user|user a/,
    );
    await expectRejected(
      mem,
      [header(ID, 1), entryJson("0000000000b1-0001", "b", "I live in Rome", { status: "superseded", superseded_by: "0000000000ff-0000" })],
      /0000000000ff-0000/,
    );
    // the target in the same import, but of another user
    await expectRejected(
      mem,
      [
        header(ID, 2),
        entryJson("0000000000b1-0001", "b", "I live in Rome", { status: "superseded", superseded_by: "0000000000c1-0001" }),
        entryJson("0000000000c1-0001", "c", "I live in Oslo"),
      ],
      /another user|user c/,
    );
    // the same chain within one user is fine
    await mem.import(
      toLines([
        header(ID, 2),
        entryJson("0000000000b1-0001", "b", "I live in Rome", { status: "superseded", superseded_by: "0000000000b2-0001" }),
        entryJson("0000000000b2-0001", "b", "I live in Oslo"),
      ]),
    );
    expect((await mem.history("b", "0000000000b1-0001")).map((e) => e.content)).toEqual(["I live in Rome", "I live in Oslo"]);
    await mem.close();
  });

  it("refuses statuses that contradict their links: active with superseded_by, superseded without, an entry superseding itself", async () => {
    const { mem, a } = await storeWithA();
    await expectRejected(
      mem,
      [header(ID, 1), entryJson("0000000000b1-0001", "b", "x y", { superseded_by: a[0]!.id })],
      /active.*superseded_by|superseded_by.*active/,
    );
    await expectRejected(
      mem,
      [header(ID, 1), entryJson("0000000000b1-0001", "b", "x y", { status: "unstructured", kind: "unstructured", superseded_by: "0000000000b1-0002" })],
      /superseded_by/,
    );
    await expectRejected(mem, [header(ID, 1), entryJson("0000000000b1-0001", "b", "x y", { status: "superseded" })], /superseded_by/);
    await expectRejected(
      mem,
      [header(ID, 1), entryJson("0000000000b1-0001", "b", "x y", { status: "superseded", superseded_by: "0000000000b1-0001" })],
      /itself/,
    );
    await expectRejected(mem, [header(ID, 1), entryJson("0000000000b1-0001", "b", "x y", { metadata: { conflict: [a[0]!.id] } })], /conflict/);
    await mem.close();
  });
});

describe("import: add's rules", () => {
  it("refuses empty content, over-long content, bad dates, a bad user id", async () => {
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4, maxContentChars: 100 });
    await mem.add("a", "I live in Beijing");
    const one = (extra: Json, content = "I live in Rome"): unknown[] => [header(ID, 1), entryJson("0000000000b1-0001", "b", content, extra)];
    await expectRejected(mem, one({}, ""), /content.*empty/);
    await expectRejected(mem, one({}, " \n\t "), /content.*empty/);
    await expectRejected(mem, one({}, "x".repeat(101)), /101 characters.*maxContentChars|maxContentChars.*101/);
    await expectRejected(mem, one({ created_at: 1e300 }), /created_at/);
    await expectRejected(mem, one({ updated_at: -8.7e15 }), /updated_at/);
    await expectRejected(mem, one({ user_id: "x".repeat(65) }), /line 2/);
    await expectRejected(mem, one({ key: "" }), /key/);
    await expectRejected(mem, one({ metadata: { deep: JSON.parse("[".repeat(40) + "]".repeat(40)) as unknown } }), /metadata/);
    // a purged tombstone has no content, and that is fine
    await mem.import(toLines(one({ status: "deleted", metadata: { purged: true, purged_at: 1_700_000_000_000 } }, "")));
    expect((await mem.list("b")).map((e) => e.status)).toEqual(["deleted"]);
    await mem.close();
  });

  it("refuses a second header, a header in the middle, a count that does not match, and a missing header", async () => {
    const src = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    for (const t of ["one fact", "two facts", "three facts"]) await src.add("b", t);
    const lines = objects(await collect(src.export()));
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    await mem.add("a", "I live in Beijing");
    await expectRejected(mem, [lines[0], lines[0], ...lines.slice(1)], /line 2.*header/);
    await expectRejected(mem, [...lines.slice(0, 2), lines[0], ...lines.slice(2)], /line 3.*header/);
    // an export cut at a line boundary
    await expectRejected(mem, lines.slice(0, 3), /count|3 entries.*2|2 .*3/);
    await expectRejected(mem, [...lines, entryJson("0000000000b9-0001", "b", "one more")], /count|3 entries.*4|4 .*3/);
    await expectRejected(mem, lines.slice(1), /header/);
    await expectRejected(mem, [], /header/);
    // …unless the caller asks for a partial import
    expect(await mem.import(toLines(lines.slice(0, 3)), { partial: true })).toMatchObject({ entries: 2 });
    expect(await mem.import(toLines(lines.slice(3)), { partial: true })).toMatchObject({ entries: 1 });
    expect((await mem.list("b")).map((e) => e.content)).toEqual(["one fact", "two facts", "three facts"]);
    await rejectsWith(mem.import([], { partial: "yes" } as never), "INVALID_ARGUMENT");
    await rejectsWith(mem.import([], { parts: true } as never), "INVALID_ARGUMENT");
    await src.close();
    await mem.close();
  });

  it("refuses entries of another user than a one-user export's header names", async () => {
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    await expectRejected(mem, [header(ID, 1, { user_id: "b" }), entryJson("0000000000c1-0001", "c", "I live in Oslo")], /user c.*b|b.*user c/);
    await mem.close();
  });

  it("refuses a line longer than the limit, naming it, without reading the rest", async () => {
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    const long = JSON.stringify(entryJson("0000000000b1-0001", "b", "word ".repeat(3_500_000))) + "\n";
    const error = await rejectsWith(mem.import([JSON.stringify(header(ID, 1)) + "\n", long]), "INVALID_ARGUMENT");
    expect(error.message).toMatch(/line 2 is longer than/);
    expect((await mem.stats()).total).toBe(0);
    await mem.close();
  });
});

describe("export header", () => {
  it("names the export format and the entry format, not a store format; older headers still import", async () => {
    const src = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    await src.add("b", "I live in Rome");
    const [head, ...rest] = objects(await collect(src.export()));
    expect(head).toMatchObject({ moomem_export: 1, entry_format: 4, count: 1 });
    expect(head).not.toHaveProperty("format");
    const { entry_format: _f, ...old } = head!;
    const dst = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    expect(await dst.import(toLines([{ ...old, format: 2 }, ...rest]))).toMatchObject({ entries: 1 });
    await src.close();
    await dst.close();
  });
});
