import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { MemoryStore } from "../index.ts";
import type { EntryKind, EntryStatus, Metadata } from "../types.ts";
import { EXPORT_ENTRY_FORMAT, EXPORT_FORMAT, entryLine, headerLine } from "../transfer/jsonl-transfer.ts";
import { makeEntryId } from "../state/ids.ts";
import { parseEntryQuery, selectEntries, type EntryQuery } from "./entry-query.ts";
import { parseUserQuery, selectUsers } from "./user-query.ts";
import { parseRecallQuery } from "./recall-query.ts";
import { seededRandom } from "../../test/helpers/seeded-random.ts";

const T0 = Date.UTC(2025, 0, 1);
const STATUSES: EntryStatus[] = ["active", "superseded", "deleted", "unstructured"];
const KINDS: EntryKind[] = ["fact", "preference", "event", "unstructured"];
const KEYS = [undefined, "home_city", "drink", "job"];
const METADATA: Metadata[] = [{}, { channel: "chat" }, { channel: "email" }, { channel: "chat", tags: ["a", "b"] }, { nested: { x: 1, y: [true, null] } }];

/** A store with `n` entries of one user with every combination of status, kind, key, time and metadata. */
async function storeWith(n: number): Promise<MemoryStore> {
  const random = seededRandom(19);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const lines: string[] = [];
  const ids = Array.from({ length: Math.max(n, 2) }, (_, i) => makeEntryId(i + 1));
  for (let i = 0; i < n; i++) {
    const createdAt = T0 + Math.floor(random() * 50) * 3_600_000;
    const key = pick(KEYS);
    const status = pick(STATUSES);
    lines.push(
      entryLine({
        id: ids[i]!,
        userId: "u1",
        content: `memory ${i} about ${pick(["Tea", "coffee", "Shenzhen", "chess"])}`,
        kind: pick(KINDS),
        ...(key === undefined ? {} : { key }),
        status,
        // A superseded entry names what replaced it (import checks the link; entry 2 replaced entry 1).
        ...(status === "superseded" ? { supersededBy: ids[i === 0 ? 1 : 0]! } : {}),
        createdAt,
        updatedAt: createdAt + Math.floor(random() * 10) * 60_000,
        seq: i + 1,
        metadata: structuredClone(pick(METADATA)),
        lifecycle: {},
        embedding: null,
      }),
    );
  }
  const mem = await MemoryStore.open(":memory:");
  const header = headerLine({
    moomem_export: EXPORT_FORMAT,
    entry_format: EXPORT_ENTRY_FORMAT,
    embedder: mem.embedderIdentity,
    user_id: "u1",
    exported_at: T0,
    count: n,
  });
  await mem.import([header, ...lines]);
  return mem;
}

const queryArb: fc.Arbitrary<EntryQuery> = fc.record(
  {
    status: fc.constantFrom<EntryQuery["status"]>("all", ...STATUSES),
    kind: fc.constantFrom(...KINDS),
    key: fc.constantFrom("home_city", "drink", "job", "nope"),
    text: fc.constantFrom("tea", "COFFEE", "memory 1", "zzz"),
    since: fc.integer({ min: 0, max: 50 }).map((h) => T0 + h * 3_600_000),
    until: fc.integer({ min: 0, max: 50 }).map((h) => T0 + h * 3_600_000),
    metadata: fc.constantFrom<Metadata>({ channel: "chat" }, { tags: ["a", "b"] }, { nested: { y: [true, null], x: 1 } }, { channel: "sms" }),
    sort: fc.constantFrom<EntryQuery["sort"]>("seq", "createdAt", "updatedAt"),
    order: fc.constantFrom<EntryQuery["order"]>("asc", "desc"),
    offset: fc.integer({ min: 0, max: 120 }),
    limit: fc.integer({ min: 1, max: 200 }),
  },
  { requiredKeys: ["status", "sort", "order", "offset", "limit"] },
);

describe("selectEntries", () => {
  it("matches MemoryStore.list's own filters, then sorts stably and cuts one page", async () => {
    const mem = await storeWith(300);
    const all = await mem.list("u1");
    await fc.assert(
      fc.asyncProperty(queryArb, async (query) => {
        if (query.since !== undefined && query.until !== undefined && query.since > query.until) return;
        const listOptions: Parameters<MemoryStore["list"]>[1] = { status: query.status };
        if (query.kind !== undefined) listOptions.kind = query.kind;
        if (query.since !== undefined) listOptions.since = query.since;
        if (query.until !== undefined) listOptions.until = query.until;
        if (query.metadata !== undefined) listOptions.metadata = query.metadata;
        const reference = (await mem.list("u1", listOptions))
          .filter(
            (e) => (query.key === undefined || e.key === query.key) && (query.text === undefined || e.content.toLowerCase().includes(query.text.toLowerCase())),
          )
          .sort((a, b) => (query.order === "asc" ? 1 : -1) * (a[query.sort] - b[query.sort] || a.seq - b.seq));
        // The API narrows by metadata with the store's own list (src/inspector/api.ts) before selecting.
        const narrowed = query.metadata === undefined ? all : await mem.list("u1", { metadata: query.metadata });
        const { total, rows } = selectEntries(narrowed, query);
        expect(total).toBe(reference.length);
        expect(rows.map((r) => r.id)).toEqual(reference.slice(query.offset, query.offset + query.limit).map((e) => e.id));
      }),
      { numRuns: 150 },
    );
    await mem.close();
  });

  it("cuts long content for the table and says so; the rows carry no metadata", async () => {
    const long = "x".repeat(1000);
    const entry = {
      id: "a",
      userId: "u",
      content: long,
      kind: "fact" as const,
      status: "active" as const,
      createdAt: 1,
      updatedAt: 1,
      seq: 1,
      metadata: { secret: "s" },
    };
    const { rows } = selectEntries([entry], parseEntryQuery(new URLSearchParams()));
    expect(rows[0]!.content.length).toBe(241);
    expect(rows[0]!.truncated).toBe(true);
    expect(rows[0]!.metadataKeys).toBe(1);
    expect(JSON.stringify(rows)).not.toContain("secret");
  });
});

describe("parseEntryQuery", () => {
  it("defaults: every status, newest first by seq, 50 rows", () => {
    expect(parseEntryQuery(new URLSearchParams())).toEqual({ status: "all", sort: "seq", order: "desc", offset: 0, limit: 50 });
  });

  it("reads every filter; empty values count as absent", () => {
    const q = parseEntryQuery(
      new URLSearchParams(
        "status=active&kind=fact&key=home_city&text=tea&since=2025-01-01T00:00:00Z&until=1735776000000&metadata=%7B%22a%22%3A1%7D&sort=createdAt&order=asc&offset=10&limit=200&",
      ),
    );
    expect(q).toEqual({
      status: "active",
      kind: "fact",
      key: "home_city",
      text: "tea",
      since: T0,
      until: 1735776000000,
      metadata: { a: 1 },
      sort: "createdAt",
      order: "asc",
      offset: 10,
      limit: 200,
    });
    expect(parseEntryQuery(new URLSearchParams("kind=&key=&status="))).toEqual(parseEntryQuery(new URLSearchParams()));
  });

  for (const [search, message] of [
    ["limit=201", '"limit" must be a whole number from 1 to 200'],
    ["limit=1e2", '"limit" must be a whole number'],
    ["offset=0x10", '"offset" must be a whole number'],
    ["since=2025-01-01T00:00:00", "ISO date"],
    ["since=99999999999999999", "ISO date"],
    ["metadata=null", "JSON object"],
    ["kind=Fact", "must be one of fact, preference, event, unstructured"],
    ["foo=1", 'unknown parameter "foo"'],
    ["key=a&key=b", "given twice"],
  ] as const) {
    it(`rejects ${search}`, () => {
      expect(() => parseEntryQuery(new URLSearchParams(search))).toThrow(message);
    });
  }
});

describe("users and recall queries", () => {
  const users = ["carol", "alice", "Bob", "dave"].map((userId, i) => ({
    userId,
    total: 4 - i,
    active: i,
    superseded: 0,
    deleted: 0,
    unstructured: 0,
    lastWriteAt: 100 - i,
  }));

  it("filters users by id (any case), sorts with the id breaking ties, pages", () => {
    expect(selectUsers(users, parseUserQuery(new URLSearchParams("text=B"))).users.map((u) => u.userId)).toEqual(["Bob"]);
    expect(selectUsers(users, parseUserQuery(new URLSearchParams("sort=userId&order=asc"))).users.map((u) => u.userId)).toEqual([
      "Bob",
      "alice",
      "carol",
      "dave",
    ]);
    const page = selectUsers(users, parseUserQuery(new URLSearchParams("sort=total&offset=1&limit=2")));
    expect(page).toMatchObject({ total: 4, offset: 1, limit: 2 });
    expect(page.users.map((u) => u.userId)).toEqual(["alice", "Bob"]);
  });

  it("recall: q required and bounded; options passed on as recall takes them", () => {
    expect(() => parseRecallQuery(new URLSearchParams("mode=keyword"))).toThrow('"q" (the query text) is required');
    expect(() => parseRecallQuery(new URLSearchParams(`q=${"a".repeat(2001)}`))).toThrow("the limit is 2000");
    expect(parseRecallQuery(new URLSearchParams("q=tea&mode=keyword&topK=3&kind=fact&since=0"))).toEqual({
      query: "tea",
      mode: "keyword",
      topK: 3,
      options: { mode: "keyword", topK: 3, kind: "fact", since: 0 },
    });
  });
});
