import { describe, it, expect } from "vitest";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import type { EntryRecord } from "../../src/types.ts";
import { throwsWith } from "../helpers/scripted.ts";
import { entryRecord } from "../helpers/entry-record.ts";

function rec(id: string, seq: number, userId = "u", extra: Partial<EntryRecord> = {}): EntryRecord {
  return entryRecord({ id, userId, seq, content: `fact number ${seq} about ${id}`, embedding: Float32Array.of(1, seq, 0, 0.5), ...extra });
}

/** Everything a caller can observe about a user in the state. */
function view(state: EntryState, userId: string): unknown {
  const shard = state.shard(userId);
  return {
    size: state.size,
    entries: state.entriesOf(userId).map((r) => [r.id, r.seq, r.status, r.supersededBy]),
    vectors: shard?.vectors.search(Float32Array.of(1, 0, 0, 0), 10).map((h) => h.doc),
    keywords: shard?.keywords.search(["fact"], 10).map((h) => h.doc),
    dedup: shard === undefined ? undefined : [...shard.dedup.entries()],
  };
}

describe("EntryState invariants", () => {
  it("an insert never replaces an existing entry (same id or same seq), and changes nothing when refused", () => {
    const state = new EntryState(4);
    state.insert(rec("x", 1));
    state.insert(rec("y", 2, "other"));
    const before = [view(state, "u"), view(state, "other")];
    throwsWith(() => state.insert(rec("y", 3)), "INVALID_ARGUMENT", "y");
    throwsWith(() => state.insert(rec("z", 1)), "INVALID_ARGUMENT", "seq 1");
    expect([view(state, "u"), view(state, "other")]).toEqual(before);
  });

  it("an update keeps the entry's user and never makes it supersede itself or link while live", () => {
    const state = new EntryState(4);
    state.insert(rec("x", 1));
    state.insert(rec("y", 2));
    const before = view(state, "u");
    throwsWith(() => state.put(rec("x", 1, "other")), "INVALID_ARGUMENT", "user");
    throwsWith(() => state.put(rec("x", 1, "u", { status: "superseded", supersededBy: "x" })), "INVALID_ARGUMENT", "itself");
    throwsWith(() => state.put(rec("x", 1, "u", { status: "superseded" })), "INVALID_ARGUMENT", "superseded");
    throwsWith(() => state.put(rec("x", 1, "u", { supersededBy: "y" })), "INVALID_ARGUMENT", "active");
    throwsWith(() => state.put(rec("q", 9)), "INVALID_ARGUMENT", "q");
    throwsWith(() => state.insert(rec("z", 3, "u", { status: "superseded", supersededBy: "z" })), "INVALID_ARGUMENT", "itself");
    expect(view(state, "u")).toEqual(before);
    state.put(rec("x", 1, "u", { status: "superseded", supersededBy: "y" }));
    expect(state.entriesOf("u").map((r) => r.status)).toEqual(["superseded", "active"]);
  });

  it("refuses vectors holding NaN or Infinity, or of another length, without a trace", () => {
    const state = new EntryState(4);
    state.insert(rec("x", 1));
    const before = view(state, "u");
    for (const embedding of [Float32Array.of(1, Number.NaN, 0, 0), Float32Array.of(Number.POSITIVE_INFINITY, 0, 0, 0), Float32Array.of(1, 0, 0)]) {
      throwsWith(() => state.insert(rec("y", 2, "u", { embedding })), "INVALID_ARGUMENT", "vector");
      throwsWith(() => state.put(rec("x", 1, "u", { embedding })), "INVALID_ARGUMENT", "vector");
      expect(view(state, "u")).toEqual(before);
    }
  });

  it("refuses to load a record whose vector is not finite (the store's data is corrupted)", () => {
    const state = new EntryState(4);
    throwsWith(() => state.load(rec("x", 1, "u", { embedding: Float32Array.of(1, Number.NaN, 0, 0) })), "STORE_CORRUPTED", "x");
    expect(state.size).toBe(0);
    expect(state.shard("u")).toBeUndefined();
  });

  it("marks a user's indexes built only once they are: a build that fails fails again, never serving a partial index", () => {
    const state = new EntryState(4);
    state.load(rec("x", 1));
    state.load(rec("y", 2));
    // A record whose content cannot be read (a stand-in for any failure while indexing it).
    const bad = rec("z", 3);
    Object.defineProperty(bad, "content", {
      get: () => {
        throw new Error("unreadable");
      },
    });
    state.load(bad);
    expect(() => state.shard("u")).toThrow("unreadable");
    expect(() => state.shard("u")).toThrow("unreadable");
    expect(state.entriesOf("u").map((r) => r.id)).toEqual(["x", "y", "z"]);
  });

  it("a change whose second insert is refused undoes the first", () => {
    const state = new EntryState(4);
    state.insert(rec("x", 1));
    const before = view(state, "u");
    const change = new Change(state);
    change.insert(rec("y", 2));
    expect(() => change.insert(rec("x", 3))).toThrow();
    change.undo();
    expect(view(state, "u")).toEqual(before);
  });

  it("follows a link only to the same user's entry", () => {
    const state = new EntryState(4);
    state.load(rec("a1", 1, "a"));
    // as a crafted file could hold it: b's entry says it was replaced by a's
    state.load(rec("b1", 2, "b", { status: "superseded", supersededBy: "a1" }));
    state.load(rec("b2", 3, "b", { status: "superseded", supersededBy: "b3" }));
    state.load(rec("b3", 4, "b"));
    expect(state.getOf("b", "a1")).toBeUndefined();
    expect(state.getOf("a", "a1")?.id).toBe("a1");
    expect(state.successor(state.get("b1")!)).toBeUndefined();
    expect(state.successor(state.get("b2")!)?.id).toBe("b3");
  });
});
