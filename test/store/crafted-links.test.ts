import { describe, it, expect } from "vitest";
import { MemoryStore, MemoryBackend } from "../../src/index.ts";
import type { EntryRecord } from "../../src/types.ts";
import { entryRecord } from "../helpers/entry-record.ts";

function rec(id: string, seq: number, userId: string, content: string, extra: Partial<EntryRecord> = {}): EntryRecord {
  return entryRecord({ id, userId, seq, content, ...extra });
}

/**
 * A backend holding what a crafted store file could say: links that cross users, an entry that
 * supersedes itself, a live entry that claims a replacement. The store must open it, and history and
 * restore must never follow a link out of the asking user's entries.
 */
async function craftedStore(): Promise<MemoryStore> {
  const backend = new MemoryBackend();
  await backend.load();
  await backend.append([
    {
      entries: [
        rec("a1", 1, "a", "A's secret: the safe code is 4711"),
        rec("b1", 2, "b", "I live in Rome", { status: "superseded", supersededBy: "a1" }),
        rec("b2", 3, "b", "I like tea", { status: "deleted", supersededBy: "a1", lifecycle: { deletedFrom: "superseded" } }),
        rec("b3", 4, "b", "I play chess", { status: "superseded", supersededBy: "b3" }),
        rec("b4", 5, "b", "I drive a van", { supersededBy: "a1" }),
        rec("a2", 6, "a", "A's old note", { status: "superseded", supersededBy: "b4" }),
      ],
    },
  ]);
  await backend.close();
  return MemoryStore.open("crafted", { backend });
}

describe("links in a crafted store never cross users", () => {
  it("history shows only the asking user's entries", async () => {
    const mem = await craftedStore();
    for (const id of ["b1", "b2", "b3", "b4"]) {
      const chain = await mem.history("b", id);
      expect(chain.every((e) => e.userId === "b")).toBe(true);
      expect(chain.map((e) => e.id)).toEqual([id]);
    }
    expect((await mem.history("a", "a1")).map((e) => e.id)).toEqual(["a1"]);
    expect((await mem.history("a", "a2")).map((e) => e.id)).toEqual(["a2"]);
    await mem.close();
  });

  it("restore never retires another user's entry", async () => {
    const mem = await craftedStore();
    const a = await mem.list("a");
    expect((await mem.restore("b", "b1")).status).toBe("active");
    expect((await mem.restore("b", "b2")).status).toBe("superseded"); // back to what it was before the forget
    expect((await mem.restore("b", "b3")).status).toBe("active");
    expect(await mem.list("a")).toEqual(a);
    expect((await mem.recall("b", "safe code secret")).map((h) => h.userId)).not.toContain("a");
    // a's entry linked to b's: restoring it leaves b's entry alone
    const b4 = (await mem.list("b")).find((e) => e.id === "b4");
    expect((await mem.restore("a", "a2")).status).toBe("active");
    expect((await mem.list("b")).find((e) => e.id === "b4")).toEqual(b4);
    await mem.close();
  });
});
