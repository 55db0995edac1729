// EntryState and Change on their own: every write keeps entries, per-user shards and their indexes in step, and undo puts back exactly what was there.

import { describe, it, expect } from "vitest";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import type { EntryRecord, EntryStatus } from "../../src/types.ts";
import { MoomemError } from "../../src/errors.ts";
import { normalizeForDedup, tokenize } from "../../src/text/tokenizer.ts";
import { seededRandom } from "../helpers/seeded-random.ts";
import { throwsWith } from "../helpers/scripted.ts";
import { entryRecord } from "../helpers/entry-record.ts";

const DIM = 4;
const WORDS = ["apple", "banana", "cherry", "dates", "elder", "fig", "grape", "kiwi"];
/** One BM25 token per vocabulary word ("apple" → "appl"). */
const TOKENS = WORDS.flatMap((w) => tokenize(w));
const USERS = ["ann", "bob", "cy"];
const KEYS = ["home_city", "employer"];
/** Every stored vector has positive components, so this query scores every indexed vector above 0. */
const EVERYTHING = Float32Array.of(0.5, 0.5, 0.5, 0.5);
const byNumber = (a: number, b: number): number => a - b;

/** The statuses recall searches; defined here rather than imported, so the model does not share the code under test. */
function live(status: EntryStatus): boolean {
  return status === "active" || status === "unstructured";
}

function rec(id: string, seq: number, userId = "ann", extra: Partial<EntryRecord> = {}): EntryRecord {
  return entryRecord({ id, userId, seq, content: `apple ${id}`, embedding: Float32Array.of(1, 0.5, 0.25, 0.125), ...extra });
}

/** Everything a caller of EntryState can observe, per user: entries, index contents, dedup and slot tables. */
function observe(state: EntryState): unknown {
  const users = [...state.users()].sort();
  return {
    size: state.size,
    all: [...state.all()].map((r) => r.id),
    users: Object.fromEntries(
      users.map((userId) => {
        const shard = state.shard(userId);
        if (shard === undefined) return [userId, "no shard"];
        return [
          userId,
          {
            entries: state.entriesOf(userId).map((r) => r.id),
            keywords: Object.fromEntries(
              TOKENS.map((t) => [
                t,
                shard.keywords
                  .search([t], 10_000)
                  .map((h) => h.doc)
                  .sort(byNumber),
              ]),
            ),
            keywordDocs: shard.keywords.size,
            vectors: shard.vectors
              .search(EVERYTHING, 10_000)
              .map((h) => h.doc)
              .sort(byNumber),
            vectorDocs: shard.vectors.size,
            dedup: [...shard.dedup].map(([norm, ids]) => [norm, [...ids].sort()]).sort(),
            keys: [...shard.keys].map(([key, seqs]) => [key, [...seqs].sort(byNumber)]).sort(),
          },
        ];
      }),
    ),
  };
}

/** What {@link observe} must show for these records, computed from the records alone. */
function expected(model: ReadonlyMap<string, EntryRecord>): unknown {
  const records = [...model.values()].sort((a, b) => a.seq - b.seq);
  const users = [...new Set(records.map((r) => r.userId))].sort();
  return {
    size: records.length,
    all: records.map((r) => r.id),
    users: Object.fromEntries(
      users.map((userId) => {
        const mine = records.filter((r) => r.userId === userId);
        const searchable = mine.filter((r) => live(r.status));
        const dedup = new Map<string, string[]>();
        const keys = new Map<string, number[]>();
        for (const r of searchable) {
          const norm = normalizeForDedup(r.content);
          dedup.set(norm, [...(dedup.get(norm) ?? []), r.id]);
          if (r.key !== undefined) keys.set(r.key, [...(keys.get(r.key) ?? []), r.seq]);
        }
        return [
          userId,
          {
            entries: mine.map((r) => r.id),
            keywords: Object.fromEntries(TOKENS.map((t) => [t, searchable.filter((r) => tokenize(r.content).includes(t)).map((r) => r.seq)])),
            keywordDocs: searchable.length,
            vectors: searchable.filter((r) => r.embedding !== null).map((r) => r.seq),
            vectorDocs: searchable.filter((r) => r.embedding !== null).length,
            dedup: [...dedup].map(([norm, ids]) => [norm, [...ids].sort()]).sort(),
            keys: [...keys].map(([key, seqs]) => [key, [...seqs].sort(byNumber)]).sort(),
          },
        ];
      }),
    ),
  };
}

describe("EntryState: indexes follow every write", () => {
  it("indexes a live entry in its user's shard only, and a deleted or superseded one nowhere", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1, "ann", { content: "apple banana", key: "home_city" }));
    state.insert(rec("b", 2, "bob", { content: "apple cherry" }));
    state.insert(rec("c", 3, "ann", { content: "fig", status: "deleted" }));
    state.insert(rec("d", 4, "ann", { content: "grape", status: "superseded", supersededBy: "a" }));
    state.insert(rec("e", 5, "ann", { content: "kiwi", status: "unstructured", embedding: null }));
    const ann = state.shard("ann")!;
    expect(ann.keywords.search(tokenize("apple"), 10).map((h) => h.doc)).toEqual([1]);
    expect(ann.keywords.search(tokenize("fig grape"), 10)).toEqual([]);
    expect(ann.keywords.search(tokenize("kiwi"), 10).map((h) => h.doc)).toEqual([5]);
    expect(ann.vectors.search(EVERYTHING, 10).map((h) => h.doc)).toEqual([1]);
    expect([...ann.dedup.keys()].sort()).toEqual(["apple banana", "kiwi"]);
    expect([...ann.keys]).toEqual([["home_city", [1]]]);
    expect(state.entriesOf("ann").map((r) => r.id)).toEqual(["a", "c", "d", "e"]);
    expect(
      state
        .shard("bob")!
        .keywords.search(tokenize("apple"), 10)
        .map((h) => h.doc),
    ).toEqual([2]);
    expect(observe(state)).toEqual(expected(new Map([...state.all()].map((r) => [r.id, r]))));
  });

  it("put moves an entry in and out of the indexes, and a new content or key replaces the old one", () => {
    const state = new EntryState(DIM);
    const a = rec("a", 1, "ann", { content: "apple banana", key: "home_city" });
    state.insert(a);
    state.insert(rec("b", 2, "ann", { content: "cherry" }));
    const model = new Map([...state.all()].map((r) => [r.id, r]));
    const versions: EntryRecord[] = [
      { ...a, status: "deleted" },
      { ...a, status: "active" },
      { ...a, content: "dates elder", key: "employer" },
      { ...a, content: "dates elder", status: "superseded", supersededBy: "b" },
      { ...a, content: "fig", status: "unstructured", embedding: null },
    ];
    for (const next of versions) {
      const before = state.get("a");
      expect(state.put(next)).toBe(before);
      model.set("a", next);
      expect(observe(state)).toEqual(expected(model));
    }
  });

  it("a refused insert or put throws INVALID_ARGUMENT and leaves every index as it was", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1));
    state.insert(rec("b", 2, "bob"));
    const before = observe(state);
    const refusals: Array<[() => unknown, string]> = [
      [() => state.insert(rec("a", 9)), "already exists"],
      [() => state.insert(rec("z", 2)), "seq 2"],
      [() => state.insert(rec("z", 9, "ann", { createdAt: Number.NaN })), "createdAt"],
      [() => state.insert(rec("z", 9, "ann", { updatedAt: 9e15 })), "updatedAt"],
      [() => state.insert(rec("z", 9, "ann", { embedding: new Float32Array(DIM + 1) })), "components"],
      [() => state.put(rec("a", 1, "bob")), "another user"],
      [() => state.put(rec("a", 1, "ann", { status: "superseded" })), "names no entry"],
      [() => state.put(rec("a", 1, "ann", { status: "unstructured", supersededBy: "b" })), "yet superseded"],
      [() => state.put(rec("a", 1, "ann", { embedding: Float32Array.of(1, 2, Number.NEGATIVE_INFINITY, 0) })), "NaN or Infinity"],
      [() => state.put(rec("nope", 7)), "no entry nope"],
    ];
    for (const [attempt, why] of refusals) {
      throwsWith(attempt, "INVALID_ARGUMENT", why);
      expect(observe(state)).toEqual(before);
    }
    // Taking another entry's seq is a seq change like any other (two entries with one seq cannot arise).
    throwsWith(() => state.put(rec("a", 2)), "INVALID_ARGUMENT", "never gives an entry another seq");
    expect(observe(state)).toEqual(before);
  });

  it("a put that keeps the entry's vector object is not checked again (a loaded vector of another length stays usable)", () => {
    const state = new EntryState(DIM);
    // Loaded from a file as stored: a vector of another length is kept, but not indexed.
    const odd = rec("a", 1, "ann", { embedding: Float32Array.of(1, 2) });
    state.load(odd);
    expect(state.shard("ann")!.vectors.size).toBe(0);
    state.put({ ...odd, status: "deleted" });
    expect(state.get("a")!.status).toBe("deleted");
  });

  // On c82b904 this put was taken: the entry kept its old place ([5, 2, 3]), and the binary search behind
  // later puts and removals then missed entries. An entry now keeps its seq for life.
  it("refuses a put that gives an entry another seq, and changes nothing", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1));
    state.insert(rec("b", 2));
    state.insert(rec("c", 3));
    throwsWith(() => state.put(rec("a", 5)), "INVALID_ARGUMENT", /never gives an entry another seq/);
    expect(state.entriesOf("ann").map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(state.bySeq(5)).toBeUndefined();
    expect(state.bySeq(1)?.id).toBe("a");
  });
});

describe("EntryState: users and shards", () => {
  it("keeps each user's entries in seq order whatever order they arrive in, and all() in seq order across users", () => {
    const state = new EntryState(DIM);
    for (const [id, seq, user] of [
      ["d", 40, "bob"],
      ["a", 10, "ann"],
      ["c", 30, "ann"],
      ["b", 20, "bob"],
    ] as const)
      state.load(rec(id, seq, user));
    state.insert(rec("e", 25, "ann"));
    state.insert(rec("f", 5, "bob"));
    expect(state.entriesOf("ann").map((r) => r.seq)).toEqual([10, 25, 30]);
    expect(state.entriesOf("bob").map((r) => r.seq)).toEqual([5, 20, 40]);
    expect([...state.all()].map((r) => r.seq)).toEqual([5, 10, 20, 25, 30, 40]);
    expect(state.entriesOf("nobody")).toEqual([]);
    expect(state.shard("nobody")).toBeUndefined();
  });

  it("lists exactly the users holding entries; removing a user's last entry drops the user", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1, "ann"));
    state.insert(rec("b", 2, "bob"));
    state.insert(rec("c", 3, "bob"));
    expect([...state.users()].sort()).toEqual(["ann", "bob"]);
    state.remove("a");
    expect([...state.users()]).toEqual(["bob"]);
    expect(state.shard("ann")).toBeUndefined();
    state.remove("b");
    expect([...state.users()]).toEqual(["bob"]);
    state.remove("missing"); // a no-op, not an error
    expect(state.size).toBe(1);
    state.remove("c");
    expect([...state.users()]).toEqual([]);
    // The user can come back with a fresh shard.
    state.insert(rec("d", 4, "ann"));
    expect(state.shard("ann")!.keywords.size).toBe(1);
  });

  it("getOf never hands out another user's entry", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1, "ann"));
    expect(state.getOf("ann", "a")?.id).toBe("a");
    expect(state.getOf("bob", "a")).toBeUndefined();
    expect(state.get("a")?.userId).toBe("ann");
  });
});

describe("EntryState: lazy index build", () => {
  /** A record whose content cannot be read: indexing it throws, so any build of its user's indexes is visible. */
  function unreadable(id: string, seq: number, userId: string): EntryRecord {
    const record = rec(id, seq, userId);
    Object.defineProperty(record, "content", {
      get: () => {
        throw new Error(`indexed ${id}`);
      },
    });
    return record;
  }

  it("load indexes nothing; users(), entriesOf(), get() and other users' shards do not build a user's indexes", () => {
    const state = new EntryState(DIM);
    state.load(unreadable("x", 1, "ann"));
    state.load(rec("y", 2, "bob"));
    expect([...state.users()].sort()).toEqual(["ann", "bob"]);
    expect(state.entriesOf("ann").map((r) => r.id)).toEqual(["x"]);
    expect(state.get("x")?.seq).toBe(1);
    expect(state.shard("bob")!.keywords.size).toBe(1);
    expect(() => state.shard("ann")).toThrow("indexed x");
  });

  it("a write for a user with unbuilt indexes builds them first, and a build that fails refuses the write with no trace", () => {
    const state = new EntryState(DIM);
    state.load(unreadable("x", 1, "ann"));
    expect(() => state.insert(rec("z", 9, "ann"))).toThrow("indexed x");
    expect(state.get("z")).toBeUndefined();
    expect(state.bySeq(9)).toBeUndefined();
    expect(state.size).toBe(1);
    expect(() => state.put({ ...state.get("x")!, updatedAt: 1 })).toThrow("indexed x");
    expect(state.get("x")!.updatedAt).toBe(1_700_000_000_001);
  });

  it("every loaded entry is indexed exactly once: on first use for an unbuilt user, at once for a built one", () => {
    const state = new EntryState(DIM);
    state.load(rec("a", 1, "ann", { content: "apple" }));
    state.load(rec("b", 2, "ann", { content: "apple banana" }));
    // An insert builds ann's indexes (a, b) and then indexes c: three documents, none twice.
    state.insert(rec("c", 3, "ann", { content: "apple cherry" }));
    expect(state.shard("ann")!.keywords.size).toBe(3);
    // ann is built now: a later load is indexed at once.
    state.load(rec("d", 4, "ann", { content: "apple dates" }));
    state.load(rec("e", 5, "bob", { content: "apple" }));
    const model = new Map([...state.all()].map((r) => [r.id, r]));
    expect(observe(state)).toEqual(expected(model));
  });

  it("load refuses a second entry with an id or seq already held, and a vector holding NaN (STORE_CORRUPTED)", () => {
    const state = new EntryState(DIM);
    state.load(rec("a", 1));
    throwsWith(() => state.load(rec("a", 2)), "STORE_CORRUPTED", "a");
    throwsWith(() => state.load(rec("b", 1)), "STORE_CORRUPTED", "seq 1");
    throwsWith(() => state.load(rec("c", 3, "ann", { embedding: Float32Array.of(Number.NaN, 0, 0, 0) })), "STORE_CORRUPTED", "NaN");
    expect(state.size).toBe(1);
    expect(state.bySeq(2)).toBeUndefined();
  });
});

describe("Change", () => {
  it("records only the final version of each entry it touched, and undo restores every earlier version", () => {
    const state = new EntryState(DIM);
    const b = rec("b", 2, "ann", { content: "banana" });
    state.insert(rec("a", 1, "ann", { content: "apple" }));
    state.insert(b);
    const before = observe(state);
    const change = new Change(state);
    expect(change.empty).toBe(true);
    change.insert(rec("c", 3, "ann", { content: "cherry" }));
    change.put({ ...state.get("c")!, content: "cherry dates" });
    change.put({ ...b, status: "deleted" });
    change.put({ ...b, status: "active", content: "banana fig" });
    change.put({ ...state.get("c")!, status: "superseded", supersededBy: "b" });
    expect(change.empty).toBe(false);
    expect(change.records().map((r) => [r.id, r.status, r.content])).toEqual([
      ["c", "superseded", "cherry dates"],
      ["b", "active", "banana fig"],
    ]);
    change.undo();
    expect(observe(state)).toEqual(before);
    expect(state.get("b")).toBe(b);
    expect(change.empty).toBe(true);
    expect(change.records()).toEqual([]);
  });

  it("a step the state refuses leaves the change's earlier steps in place until the caller undoes them", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a", 1));
    const before = observe(state);
    const change = new Change(state);
    change.insert(rec("b", 2));
    change.put({ ...state.get("a")!, status: "superseded", supersededBy: "b" });
    throwsWith(() => change.put(rec("a", 1, "bob")), "INVALID_ARGUMENT", "another user");
    expect(state.get("b")?.id).toBe("b");
    expect(change.records().map((r) => r.id)).toEqual(["b", "a"]);
    change.undo();
    expect(observe(state)).toEqual(before);
  });

  it("checkLinks refuses a new link to another user's entry, and allows same-user links, links to entries not (yet) there, and old links it did not touch", () => {
    const state = new EntryState(DIM);
    state.insert(rec("a1", 1, "ann"));
    state.insert(rec("a2", 2, "ann"));
    state.insert(rec("b1", 3, "bob"));
    // As a crafted file could hold it: bob's entry superseded by ann's.
    state.load(rec("b2", 4, "bob", { status: "superseded", supersededBy: "a1" }));

    const crossing = new Change(state);
    crossing.put({ ...state.get("b1")!, status: "superseded", supersededBy: "a1" });
    throwsWith(() => crossing.checkLinks(), "INVALID_ARGUMENT", "another user's entry");
    crossing.undo();
    expect(state.get("b1")!.status).toBe("active");

    const sameUser = new Change(state);
    sameUser.put({ ...state.get("a1")!, status: "superseded", supersededBy: "a2" });
    sameUser.checkLinks();
    sameUser.undo();

    const dangling = new Change(state);
    dangling.insert(rec("a3", 5, "ann", { status: "superseded", supersededBy: "not-imported-yet" }));
    dangling.checkLinks();
    dangling.undo();

    // Forgetting the entry with the crafted link keeps the link: the change did not make it.
    const untouched = new Change(state);
    untouched.put({ ...state.get("b2")!, status: "deleted", supersededBy: "a1" });
    untouched.checkLinks();

    // A link made inside the change is checked against its version from before the change.
    const madeThenKept = new Change(state);
    madeThenKept.put({ ...state.get("b1")!, status: "superseded", supersededBy: "a2" });
    madeThenKept.put({ ...state.get("b1")!, updatedAt: 5 });
    throwsWith(() => madeThenKept.checkLinks(), "INVALID_ARGUMENT", "b1");
  });
});

describe("EntryState against a reference model (seeded, bounded by runs)", () => {
  interface World {
    rand: () => number;
    state: EntryState;
    model: Map<string, EntryRecord>;
    nextId: number;
    usedSeqs: Set<number>;
  }

  const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

  function freshSeq(w: World): number {
    for (;;) {
      const seq = 1 + Math.floor(w.rand() * 5000);
      if (!w.usedSeqs.has(seq)) {
        w.usedSeqs.add(seq);
        return seq;
      }
    }
  }

  function randomContent(rand: () => number): string {
    const n = 1 + Math.floor(rand() * 3);
    return Array.from({ length: n }, () => pick(rand, WORDS)).join(" ");
  }

  function randomVector(rand: () => number): Float32Array | null {
    return rand() < 0.2 ? null : Float32Array.from({ length: DIM }, () => 0.1 + rand());
  }

  /** Another entry of the same user to point `supersededBy` at, or undefined when there is none. */
  function sameUserOther(w: World, userId: string, id: string): string | undefined {
    const others = [...w.model.values()].filter((r) => r.userId === userId && r.id !== id);
    return others.length === 0 ? undefined : pick(w.rand, others).id;
  }

  function withStatus(w: World, record: EntryRecord): EntryRecord {
    const status = pick<EntryStatus>(w.rand, ["active", "active", "unstructured", "deleted", "superseded"]);
    const next: EntryRecord = { ...record, status };
    delete next.supersededBy;
    if (status === "superseded") {
      const target = sameUserOther(w, record.userId, record.id);
      if (target === undefined) next.status = "deleted";
      else next.supersededBy = target;
    }
    return next;
  }

  function newRecord(w: World): EntryRecord {
    const id = `e${w.nextId++}`;
    const seq = freshSeq(w);
    const record: EntryRecord = {
      id,
      userId: pick(w.rand, USERS),
      content: randomContent(w.rand),
      kind: "fact",
      status: "active",
      createdAt: seq,
      updatedAt: seq,
      seq,
      metadata: {},
      lifecycle: {},
      embedding: randomVector(w.rand),
    };
    if (w.rand() < 0.4) record.key = pick(w.rand, KEYS);
    return withStatus(w, record);
  }

  /** The next version of an existing entry: one or two fields changed, user and seq kept. */
  function nextVersion(w: World, record: EntryRecord): EntryRecord {
    let next: EntryRecord = { ...record, updatedAt: record.updatedAt + 1 };
    const changes = 1 + Math.floor(w.rand() * 2);
    for (let i = 0; i < changes; i++) {
      const what = Math.floor(w.rand() * 4);
      if (what === 0) next = withStatus(w, next);
      else if (what === 1) next.content = randomContent(w.rand);
      else if (what === 2) next.embedding = randomVector(w.rand);
      else if (w.rand() < 0.5) delete next.key;
      else next.key = pick(w.rand, KEYS);
    }
    return next;
  }

  /** A write the state must refuse, with nothing changed. */
  function refusedWrite(w: World, existing: EntryRecord): () => unknown {
    const kind = Math.floor(w.rand() * 6);
    if (kind === 0) return () => w.state.insert({ ...existing, seq: 99_999 });
    if (kind === 1) return () => w.state.insert({ ...existing, id: "brand-new" });
    if (kind === 2)
      return () =>
        w.state.put({
          ...existing,
          userId: pick(
            w.rand,
            USERS.filter((u) => u !== existing.userId),
          ),
        });
    if (kind === 3) return () => w.state.put({ ...existing, status: "superseded", supersededBy: existing.id });
    if (kind === 4) return () => w.state.put({ ...existing, embedding: Float32Array.of(Number.NaN, 1, 1, 1) });
    return () => w.state.put({ ...existing, status: "active", supersededBy: existing.id === "x" ? "y" : "x" });
  }

  function run(seed: number, steps: number): void {
    const rand = seededRandom(seed);
    const w: World = { rand, state: new EntryState(DIM), model: new Map(), nextId: 0, usedSeqs: new Set() };
    // Start as an open does: records loaded as stored, in whatever order, indexes not built.
    const loaded = Math.floor(rand() * 12);
    for (let i = 0; i < loaded; i++) {
      const record = newRecord(w);
      w.state.load(record);
      w.model.set(record.id, record);
    }
    for (let step = 0; step < steps; step++) {
      const existing = [...w.model.values()];
      const op = rand();
      if (op < 0.25 || existing.length === 0) {
        const record = newRecord(w);
        w.state.insert(record);
        w.model.set(record.id, record);
      } else if (op < 0.5) {
        const next = nextVersion(w, pick(rand, existing));
        w.state.put(next);
        w.model.set(next.id, next);
      } else if (op < 0.6) {
        const before = observe(w.state);
        const attempt = refusedWrite(w, pick(rand, existing));
        expect(attempt).toThrow(MoomemError);
        expect(observe(w.state)).toEqual(before);
      } else if (op < 0.85) {
        // A change of several steps, kept or undone (as a failed write's is).
        const before = observe(w.state);
        const change = new Change(w.state);
        const after = new Map(w.model);
        const touched: string[] = [];
        const n = 1 + Math.floor(rand() * 4);
        for (let i = 0; i < n; i++) {
          if (rand() < 0.4) {
            const record = newRecord(w);
            change.insert(record);
            after.set(record.id, record);
            touched.push(record.id);
          } else {
            const next = nextVersion(w, pick(rand, [...after.values()]));
            change.put(next);
            after.set(next.id, next);
            touched.push(next.id);
          }
        }
        expect(change.records()).toEqual([...new Set(touched)].map((id) => after.get(id)));
        if (rand() < 0.5) {
          change.undo();
          expect(observe(w.state)).toEqual(before);
        } else {
          for (const [id, record] of after) w.model.set(id, record);
        }
      } else if (op < 0.93) {
        const victim = pick(rand, existing);
        w.state.remove(victim.id);
        w.model.delete(victim.id);
      } else {
        const record = newRecord(w);
        w.state.load(record);
        w.model.set(record.id, record);
      }
      // Observing builds every user's indexes; look only now and then so writes also meet unbuilt users.
      if (rand() < 0.3) expect(observe(w.state)).toEqual(expected(w.model));
    }
    expect(observe(w.state)).toEqual(expected(w.model));
  }

  it("after any sequence of loads, inserts, puts, refused writes, changes kept or undone and removals, the state is what the records say", () => {
    for (let seed = 1; seed <= 40; seed++) {
      try {
        run(seed, 80);
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`, { cause: error });
      }
    }
  });
});
