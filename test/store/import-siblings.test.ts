import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend } from "../../src/index.ts";
import { rejectsWith } from "../helpers/scripted.ts";
import { DENSE4, collect, entryJson, header, toLines } from "../helpers/export-lines.ts";

const ID = { id: DENSE4.id!, dim: DENSE4.dim };
const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

describe("import: names that are also Object.prototype's", () => {
  it("users, ids, keys and metadata keys named __proto__, constructor, … stay data, apart per user, also after a reopen", async () => {
    const backend = new MemoryBackend();
    const mem = await MemoryStore.open("protos", { backend, embedder: DENSE4 });
    await mem.add("plain", "I live in Rome");
    const lines = [
      header(ID, NAMES.length),
      ...NAMES.map((name, i) =>
        entryJson(name, name, `${name} lives in city ${i}`, {
          key: name,
          metadata: JSON.parse(`{"__proto__":{"polluted":${i}},"constructor":"${name}","n":${i}}`) as Record<string, unknown>,
        }),
      ),
    ];
    expect(await mem.import(toLines(lines))).toMatchObject({ entries: NAMES.length, users: NAMES.length });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    const check = async (store: MemoryStore): Promise<void> => {
      for (const [i, name] of NAMES.entries()) {
        const list = await store.list(name);
        expect(list.map((e) => [e.id, e.userId, e.key])).toEqual([[name, name, name]]);
        expect(Object.keys(list[0]!.metadata)).toEqual(["__proto__", "constructor", "n"]);
        expect(Object.getPrototypeOf(list[0]!.metadata)).toBe(Object.prototype);
        expect((await store.recall(name, "lives in city")).map((h) => h.userId)).toEqual([name]);
        expect(Object.keys((await store.profile(name)).slots)).toEqual([name]);
        expect(await store.list(name, { metadata: { n: i } })).toHaveLength(1);
      }
      // a filter on a key the entry does not have matches nothing, "__proto__" included
      expect(await store.list("plain", { metadata: JSON.parse('{"__proto__":{}}') as Record<string, never> })).toEqual([]);
      expect((await store.list("plain")).map((e) => e.content)).toEqual(["I live in Rome"]);
      expect((await store.stats()).users).toBe(NAMES.length + 1);
    };
    await check(mem);
    const exported = await collect(mem.export());
    await mem.close();
    const again = await MemoryStore.open("protos", { backend, embedder: DENSE4 });
    await check(again);
    await again.close();
    const copy = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    await copy.import(exported);
    await check(copy);
    await copy.close();
  });
});

describe("import: siblings of the reported cases", () => {
  it("content with lone surrogates, controls and NULs round-trips through export, import and a reopen", async () => {
    const backend = new MemoryBackend();
    const mem = await MemoryStore.open("odd-content", { backend, embedder: DENSE4 });
    const contents = ["half a pair \ud800 here", "tab\tnul\u0000bell\u0007 end", "rtl \u202e override", "emoji 🐈 and \udc00 low"];
    await mem.import(toLines([header(ID, contents.length), ...contents.map((c, i) => entryJson(`odd-${i}`, "u", c))]));
    const copy = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    await copy.import(await collect(mem.export()));
    await mem.close();
    const again = await MemoryStore.open("odd-content", { backend, embedder: DENSE4 });
    expect((await again.list("u")).map((e) => e.content)).toEqual(contents);
    expect((await copy.list("u")).map((e) => e.content)).toEqual(contents);
    await again.close();
    await copy.close();
  });

  it("a forgotten entry that was superseded must name its successor, or restore could not put it back", async () => {
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    const error = await rejectsWith(
      mem.import(
        toLines([header(ID, 1), entryJson("x1", "u", "I live in Rome", { status: "deleted", metadata: { deleted_from: "superseded", deleted_at: 1 } })]),
      ),
      "INVALID_ARGUMENT",
    );
    expect(error.message).toMatch(/line 2.*deleted_from/);
    // with its successor it imports, and restore puts it back as it was
    await mem.import(
      toLines([
        header(ID, 2),
        entryJson("x1", "u", "I live in Rome", { status: "deleted", superseded_by: "x2", metadata: { deleted_from: "superseded", deleted_at: 1 } }),
        entryJson("x2", "u", "I live in Oslo"),
      ]),
    );
    expect(await mem.restore("u", "x1")).toMatchObject({ status: "superseded", supersededBy: "x2" });
    await mem.close();
  });

  it("a deleted entry whose earlier status was live comes back without a stale link", async () => {
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    await mem.import(
      toLines([
        header(ID, 2),
        entryJson("x1", "u", "I live in Rome", { status: "deleted", superseded_by: "x2", metadata: { deleted_from: "active", deleted_at: 1 } }),
        entryJson("x2", "u", "I live in Oslo"),
      ]),
    );
    const restored = await mem.restore("u", "x1");
    expect(restored.status).toBe("active");
    expect(restored.supersededBy).toBeUndefined();
    await mem.close();
  });

  it("metadata with many keys imports as add would keep it, and past add's limit is refused as add refuses it", async () => {
    const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
    const many = (n: number): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    await mem.import(toLines([header(ID, 1), entryJson("m1", "u", "many keys", { metadata: many(5_000) })]));
    expect(Object.keys((await mem.list("u"))[0]!.metadata)).toHaveLength(5_000);
    await expect(mem.add("u", "too many keys", { metadata: many(50_000) })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(mem.import(toLines([header(ID, 1), entryJson("m2", "u", "too many keys", { metadata: many(50_000) })]))).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(/too large/) as unknown,
    });
    expect(await mem.list("u")).toHaveLength(1);
    await mem.close();
  });

  it("readline-style input (lines without newlines), CRLF lines and a byte order mark import the same", async () => {
    const lines = toLines([header(ID, 2), entryJson("r1", "u", "first line"), entryJson("r2", "u", "second line")]);
    const variants: string[][] = [
      lines.map((l) => l.slice(0, -1)),
      ["\ufeff" + lines.join("").replaceAll("\n", "\r\n")],
      [lines[0]!.slice(0, -1), "\n" + lines[1]!.slice(0, -1), "\r\n", lines[2]!],
      lines.join("").split(""),
    ];
    for (const variant of variants) {
      const mem = await MemoryStore.open(":memory:", { embedder: DENSE4 });
      expect(await mem.import(variant)).toEqual({ entries: 2, users: 1, skipped: 1 });
      expect((await mem.list("u")).map((e) => e.content)).toEqual(["first line", "second line"]);
      await mem.close();
    }
  });
});
