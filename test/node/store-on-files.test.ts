import { describe, it, expect, afterEach } from "vitest";
import { mkdtempSync, rmSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "../../src/node.ts";
import { rejectsWith } from "../helpers/scripted.ts";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "moomem-store-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("MemoryStore on files (Node entry)", () => {
  it("remembers across close and reopen, with the same recall answer", async () => {
    const dir = tempDir();
    const mem = await MemoryStore.open(dir);
    await mem.add("user-42", "I'm allergic to peanuts");
    await mem.add("user-42", "我住在北京");
    const before = await mem.recall("user-42", "what should I cook for lunch? peanuts?", { topK: 5 });
    await mem.close();
    const again = await MemoryStore.open(dir);
    expect(await again.recall("user-42", "what should I cook for lunch? peanuts?", { topK: 5 })).toEqual(before);
    expect((await again.stats()).total).toBe(2);
    await again.close();
  });

  it("keeps acknowledged writes without close (journal replay)", async () => {
    const dir = tempDir();
    const mem = await MemoryStore.open(dir);
    const s = await mem.add("u1", "the spare key is under the blue pot");
    await mem.forget("u1", { id: s.facts[0]!.id });
    await mem.add("u1", "the spare key is with the neighbour");
    // simulate a crash: no close; a read-only open sees everything acknowledged
    const ro = await MemoryStore.open(dir, { readOnly: true });
    expect((await ro.list("u1")).map((e) => [e.content, e.status])).toEqual([
      ["the spare key is under the blue pot", "deleted"],
      ["the spare key is with the neighbour", "active"],
    ]);
    await rejectsWith(ro.add("u1", "nope"), "READ_ONLY");
    await ro.close();
    await mem.close();
  });

  it("locks the directory against a second writer in the same process", async () => {
    const dir = tempDir();
    const mem = await MemoryStore.open(dir);
    await rejectsWith(MemoryStore.open(dir), "STORE_LOCKED");
    await mem.close();
    const again = await MemoryStore.open(dir);
    await again.close();
  });

  it("purge removes the content from every file after compaction", async () => {
    const dir = tempDir();
    const mem = await MemoryStore.open(dir);
    await mem.add("u1", "my passport number is X1234567");
    await mem.add("u1", "I like sailing");
    expect(await mem.forget("u1", { all: true }, { purge: true })).toBe(2);
    await mem.close();
    const files = readdirSync(join(dir, "moomem"));
    for (const f of files) expect(readFileSync(join(dir, "moomem", f), "utf8")).not.toContain("X1234567");
    const again = await MemoryStore.open(dir);
    expect((await again.list("u1")).every((e) => e.status === "deleted" && e.content === "")).toBe(true);
    await again.close();
  });

  it("refuses to open with a different embedder, and reembeds on request", async () => {
    const dir = tempDir();
    const mem = await MemoryStore.open(dir);
    await mem.add("u1", "rock climbing on weekends");
    await mem.close();
    const other = { dim: 2, id: "flat/2", embed: (t: string[]) => Promise.resolve(t.map(() => Float32Array.of(1, 0))) };
    await rejectsWith(MemoryStore.open(dir, { embedder: other }), "EMBEDDER_MISMATCH");
    const re = await MemoryStore.open(dir, { embedder: other, reembed: true });
    expect((await re.recall("u1", "climbing")).length).toBe(1);
    await re.close();
    const after = await MemoryStore.open(dir, { embedder: other });
    await after.close();
  });
});
