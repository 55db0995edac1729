import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend } from "../../src/index.ts";
import type { Batch } from "../../src/persistence/backend.ts";
import { Change, EntryState } from "../../src/state/entry-state.ts";
import type { EntryRecord } from "../../src/types.ts";
import { throwsWith } from "../helpers/scripted.ts";
import { entryRecord } from "../helpers/entry-record.ts";

function rec(id: string, seq: number, userId: string): EntryRecord {
  return entryRecord({ id, userId, seq, createdAt: 1, updatedAt: 1 });
}

/** A memory backend that records every batch it is given. */
class RecordingBackend extends MemoryBackend {
  readonly batches: Batch[] = [];
  override append(batches: readonly Batch[]): Promise<void> {
    this.batches.push(...batches);
    return super.append(batches);
  }
}

describe("a write for one user", () => {
  it("refuses to insert or change another user's entry, and changes nothing", () => {
    const state = new EntryState(2);
    state.insert(rec("a", 1, "alice"));
    state.insert(rec("b", 2, "bob"));
    const change = new Change(state, "alice");
    change.insert(rec("a2", 3, "alice"));
    throwsWith(() => change.insert(rec("b2", 4, "bob")), "INVALID_ARGUMENT", "for user alice only");
    throwsWith(() => change.put({ ...state.get("b")!, content: "changed" }), "INVALID_ARGUMENT", "for user alice only");
    expect(state.get("b")!.content).toBe("fact 2");
    expect(state.get("b2")).toBeUndefined();
    // A change for no one user (an import) may touch any user's entries.
    new Change(state).insert(rec("b3", 5, "bob"));
  });

  it("names its user in every batch the backend gets (add, forget, restore); an import names none", async () => {
    const backend = new RecordingBackend();
    const mem = await MemoryStore.open("x", { backend });
    const { facts } = await mem.add("alice", "I have a dog named Rex");
    await mem.forget("alice", { id: facts[0]!.id });
    await mem.restore("alice", facts[0]!.id);
    await mem.add("bob", "I play the cello");
    expect(backend.batches.map((b) => [b.userId, b.entries.map((e) => e.userId)])).toEqual([
      ["alice", ["alice"]],
      ["alice", ["alice"]],
      ["alice", ["alice"]],
      ["bob", ["bob"]],
    ]);
    const lines: string[] = [];
    for await (const line of mem.export()) lines.push(line);
    const other = new RecordingBackend();
    const copy = await MemoryStore.open("y", { backend: other });
    await copy.import(lines);
    expect(other.batches.map((b) => b.userId)).toEqual([undefined]);
    await Promise.all([mem.close(), copy.close()]);
  });
});
