import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { buildProfile } from "./profile.ts";
import { MemoryStore } from "./memory-store.ts";
import { FixedClock } from "../clock.ts";
import type { EntryKind, EntryStatus, ExtractedFact, Extractor, MemoryEntry } from "../types.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";

let seq = 0;
function entry(content: string, fields: { key?: string; kind?: EntryKind; status?: EntryStatus; createdAt?: number; userId?: string } = {}): MemoryEntry {
  seq++;
  const e: MemoryEntry = {
    id: `e${seq}`,
    userId: fields.userId ?? "u1",
    content,
    kind: fields.kind ?? "fact",
    status: fields.status ?? "active",
    createdAt: fields.createdAt ?? 1000,
    updatedAt: 5000,
    seq,
    metadata: {},
  };
  if (fields.key !== undefined) e.key = fields.key;
  return e;
}

function invalid(fn: () => unknown, text: string): void {
  throwsWith(fn, "INVALID_ARGUMENT", text);
}

describe("buildProfile", () => {
  it("puts the newest live value of each key in its slot and lists the rest by kind", () => {
    const beijing = entry("User lives in Beijing", { key: "home_city", createdAt: 100, status: "superseded" });
    const shenzhen = entry("User lives in Shenzhen", { key: "home_city", createdAt: 200 });
    const tea = entry("User prefers green tea", { kind: "preference", createdAt: 150 });
    const jazz = entry("User likes jazz", { kind: "preference", createdAt: 300 });
    const marathon = entry("User ran a marathon", { kind: "event", createdAt: 50 });
    const raw = entry("remind me about the dentist", { kind: "unstructured", createdAt: 400 });
    const gone = entry("User has a cat", { key: "pet", status: "deleted" });
    const degraded = entry("user: I work at ACME", { kind: "unstructured", status: "unstructured", createdAt: 10 });
    const vegan = entry("User is vegan", { createdAt: 20 });
    const employer = entry("User works at ACME", { key: "employer", kind: "fact", createdAt: 30 });

    const profile = buildProfile([beijing, shenzhen, tea, jazz, marathon, raw, gone, degraded, vegan, employer], "u1");
    expect(profile).toEqual({
      userId: "u1",
      slots: {
        employer: { value: "User works at ACME", id: employer.id, kind: "fact", observedAt: 30 },
        home_city: { value: "User lives in Shenzhen", id: shenzhen.id, kind: "fact", observedAt: 200 },
      },
      facts: [{ id: vegan.id, content: "User is vegan", kind: "fact", observedAt: 20 }],
      preferences: [
        { id: jazz.id, content: "User likes jazz", kind: "preference", observedAt: 300 },
        { id: tea.id, content: "User prefers green tea", kind: "preference", observedAt: 150 },
      ],
      events: [{ id: marathon.id, content: "User ran a marathon", kind: "event", observedAt: 50 }],
      unstructured: [
        { id: raw.id, content: "remind me about the dentist", kind: "unstructured", observedAt: 400 },
        { id: degraded.id, content: "user: I work at ACME", kind: "unstructured", observedAt: 10 },
      ],
    });
    expect(Object.keys(profile.slots)).toEqual(["employer", "home_city"]);
  });

  it("picks the slot value by observed time, then write order; lists coexisting values as conflicting", () => {
    const imported = entry("User lives in Lisbon", { key: "home_city", createdAt: 900 });
    const older = entry("User lives in Porto", { key: "home_city", createdAt: 100 });
    const sameTime = entry("User lives in Faro", { key: "home_city", createdAt: 900 });
    const profile = buildProfile([sameTime, imported, older]);
    expect(profile.slots["home_city"]).toEqual({
      value: "User lives in Faro",
      id: sameTime.id,
      kind: "fact",
      observedAt: 900,
      conflicting: [
        { id: imported.id, content: "User lives in Lisbon", kind: "fact", observedAt: 900 },
        { id: older.id, content: "User lives in Porto", kind: "fact", observedAt: 100 },
      ],
    });
    expect(profile.userId).toBe("u1");
  });

  it("gives the same profile whatever the order of the entries (property)", () => {
    const arbEntry = fc.record({
      key: fc.option(fc.constantFrom("home_city", "employer", "diet"), { nil: undefined }),
      kind: fc.constantFrom<EntryKind>("fact", "preference", "event", "unstructured"),
      status: fc.constantFrom<EntryStatus>("active", "superseded", "deleted", "unstructured"),
      createdAt: fc.integer({ min: 0, max: 5 }),
      word: fc.constantFrom("a", "b", "c"),
    });
    fc.assert(
      fc.property(
        fc.array(arbEntry, { maxLength: 15 }).chain((specs) => {
          const entries = specs.map((s) => {
            const fields: Parameters<typeof entry>[1] = { kind: s.kind, status: s.status, createdAt: s.createdAt };
            if (s.key !== undefined) fields.key = s.key;
            return entry(s.word, fields);
          });
          return fc.tuple(fc.constant(entries), fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }));
        }),
        ([entries, shuffled]) => {
          const a = buildProfile(entries, "u1");
          expect(buildProfile(shuffled, "u1")).toEqual(a);
          const liveIds = entries
            .filter((e) => e.status === "active" || e.status === "unstructured")
            .map((e) => e.id)
            .sort();
          const shown = [
            ...Object.values(a.slots).flatMap((s) => [s.id, ...(s.conflicting ?? []).map((c) => c.id)]),
            ...[...a.facts, ...a.preferences, ...a.events, ...a.unstructured].map((f) => f.id),
          ].sort();
          expect(shown).toEqual(liveIds);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("keeps odd keys as ordinary slots", () => {
    const profile = buildProfile([entry("x", { key: "__proto__" }), entry("y", { key: "constructor" })]);
    expect(Object.keys(profile.slots)).toEqual(["__proto__", "constructor"]);
    expect(profile.slots["__proto__"]!.value).toBe("x");
    expect(Object.getPrototypeOf(profile.slots)).toBe(Object.prototype);
  });

  it("never mixes users, and validates its input", () => {
    invalid(() => buildProfile([entry("a"), entry("b", { userId: "u2" })]), 'entries[1] belongs to user "u2"');
    invalid(() => buildProfile([entry("a")], "u2"), 'not "u2"');
    invalid(() => buildProfile("nope" as unknown as MemoryEntry[]), "entries must be an array");
    invalid(() => buildProfile([{ content: "x" } as MemoryEntry]), "entries[0] is not a memory entry");
    expect(() => buildProfile([], "bad/id")).toThrow(/user id/);
    expect(buildProfile([], "u9")).toEqual({ userId: "u9", slots: {}, facts: [], preferences: [], events: [], unstructured: [] });
    expect(buildProfile([]).userId).toBeNull();
  });
});

/** Extracts "key=value" lines as keyed facts, anything else as a preference. */
const keyed: Extractor = {
  mode: "keyed",
  extract(_u, input): Promise<ExtractedFact[]> {
    const text = typeof input === "string" ? input : input.map((m) => m.content).join("\n");
    const m = /^(\w+)=(.+)$/.exec(text);
    return Promise.resolve(m ? [{ content: `${m[1]} is ${m[2]}`, kind: "fact", key: m[1]! }] : [{ content: text, kind: "preference" }]);
  },
};

describe("buildProfile over the store's list", () => {
  it("follows supersede, restore, forget and observed time", async () => {
    const clock = new FixedClock(10_000);
    const mem = await MemoryStore.open(":memory:", { extractor: keyed, clock });
    const profile = async (): Promise<Record<string, string>> => {
      const p = buildProfile(await mem.list("u1"), "u1");
      return Object.fromEntries(Object.entries(p.slots).map(([k, s]) => [k, s.value]));
    };
    const beijing = (await mem.add("u1", "home_city=Beijing")).facts[0]!.id;
    await mem.add("u1", "diet=vegetarian");
    await mem.add("u1", "I like long walks");
    await mem.add("u2", "home_city=Oslo");
    expect(await profile()).toEqual({ diet: "diet is vegetarian", home_city: "home_city is Beijing" });

    clock.advance(1000);
    const shenzhen = (await mem.add("u1", "home_city=Shenzhen")).facts[0]!.id;
    expect(await profile()).toEqual({ diet: "diet is vegetarian", home_city: "home_city is Shenzhen" });

    // Undo the supersede: Beijing holds the slot again.
    await mem.restore("u1", beijing);
    expect(await profile()).toEqual({ diet: "diet is vegetarian", home_city: "home_city is Beijing" });
    await mem.restore("u1", shenzhen);
    expect(await profile()).toEqual({ diet: "diet is vegetarian", home_city: "home_city is Shenzhen" });

    // An older value imported later does not take the slot.
    await mem.add("u1", "home_city=Hangzhou", { observedAt: 500 });
    expect((await profile())["home_city"]).toBe("home_city is Shenzhen");

    // Forget empties the slot; restore fills it again.
    await mem.forget("u1", { id: shenzhen });
    const afterForget = buildProfile(await mem.list("u1"), "u1");
    expect(afterForget.slots["home_city"]).toBeUndefined();
    await mem.restore("u1", shenzhen);
    const p = buildProfile(await mem.list("u1"), "u1");
    expect(p.slots["home_city"]).toMatchObject({ value: "home_city is Shenzhen", id: shenzhen, observedAt: 11_000 });
    expect(p.preferences.map((f) => f.content)).toEqual(["I like long walks"]);
    // The status: "active" list the lead's profile() may pass gives the same slots.
    expect(buildProfile(await mem.list("u1", { status: "active" }), "u1").slots).toEqual(p.slots);
    expect(buildProfile(await mem.list("u2"), "u2").slots["home_city"]!.value).toBe("home_city is Oslo");
    await mem.close();
  });
});
