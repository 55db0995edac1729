// Whether close() compacts (docs/design.md, "Compaction"): only when the backend says a compaction would change
// what it holds (`hasUncompacted()` false skips it); a backend without the method, or one that throws or answers
// anything but false, is compacted at every close as before.

import { describe, it, expect } from "vitest";
import { MemoryStore } from "../../src/store/memory-store.ts";
import { MemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import type { SnapshotSource } from "../../src/persistence/backend.ts";

/** A memory backend with a scripted `hasUncompacted` and counted compactions. */
class Scripted extends MemoryBackend {
  compactions = 0;
  answer: () => unknown = () => false;

  override compact(source: SnapshotSource): Promise<void> {
    this.compactions++;
    return super.compact(source);
  }

  hasUncompacted(): boolean {
    return this.answer() as boolean;
  }
}

class Counted extends MemoryBackend {
  compactions = 0;

  override compact(source: SnapshotSource): Promise<void> {
    this.compactions++;
    return super.compact(source);
  }
}

describe("close and hasUncompacted()", () => {
  it("false: close does not compact (after reads and after writes alike: the backend decides)", async () => {
    const backend = new Scripted();
    const mem = await MemoryStore.open("x", { backend });
    const atOpen = backend.compactions; // a new store records its embedder at open, whatever the answer
    expect(atOpen).toBe(1);
    await mem.add("ann", "I live in Berlin");
    await mem.recall("ann", "where");
    await mem.close();
    expect(backend.compactions).toBe(atOpen);
  });

  for (const [name, answer] of [
    ["true", () => true],
    [
      "a throw",
      () => {
        throw new Error("boom");
      },
    ],
    ["a non-boolean", () => "no"],
    ["undefined", () => undefined],
  ] as const) {
    it(`${name}: close compacts as before`, async () => {
      const backend = new Scripted();
      backend.answer = answer;
      const mem = await MemoryStore.open("x", { backend });
      await mem.recall("ann", "where");
      await mem.close();
      expect(backend.compactions).toBe(2);
    });
  }

  it("a backend without the method is compacted at every close", async () => {
    const backend = new Counted();
    const mem = await MemoryStore.open("x", { backend });
    await mem.close();
    expect(backend.compactions).toBe(2);
  });

  it("a read-only store never asks and never compacts", async () => {
    const backend = new Scripted();
    const writer = await MemoryStore.open("x", { backend });
    await writer.add("ann", "I live in Berlin");
    await writer.close();
    const before = backend.compactions;
    let asked = 0;
    const reader = new Scripted();
    reader.answer = () => {
      asked++;
      return true;
    };
    // A read-only open of its own backend: load() works on an empty memory backend too.
    const ro = await MemoryStore.open("x", { backend: reader, readOnly: true });
    await ro.close();
    expect(asked).toBe(0);
    expect(reader.compactions).toBe(0);
    expect(backend.compactions).toBe(before);
  });
});
