import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { formatContext, relativeTime, type ContextMemory } from "./format-context.ts";
import { MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_OPEN, stripMemoryContext } from "../text/context-markers.ts";
import { throwsWith } from "../../test/helpers/scripted.ts";

const NOW = Date.UTC(2024, 2, 10, 12, 0, 0); // 2024-03-10T12:00Z
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const hits: ContextMemory[] = [
  { id: "e1", kind: "fact", content: "I moved to Shenzhen", createdAt: NOW - 2 * DAY },
  { id: "e2", kind: "preference", content: "I'm allergic to peanuts", createdAt: Date.UTC(2023, 10, 2) },
  { id: "e3", kind: "event", content: "Dentist appointment on Friday", createdAt: NOW - 3 * HOUR },
];

function invalid(fn: () => unknown, text: string): void {
  throwsWith(fn, "INVALID_ARGUMENT", text);
}

describe("relativeTime", () => {
  it("says how long ago, then switches to a calendar date after 30 days or for future times", () => {
    const cases: Array<[number, string]> = [
      [0, "just now"],
      [59_999, "just now"],
      [-30_000, "just now"],
      [MIN, "1 minute ago"],
      [59 * MIN, "59 minutes ago"],
      [HOUR, "1 hour ago"],
      [23 * HOUR + 59 * MIN, "23 hours ago"],
      [DAY, "1 day ago"],
      [2 * DAY + 5 * HOUR, "2 days ago"],
      [30 * DAY - 1, "29 days ago"],
      [30 * DAY, "on 2024-02-09"],
      [-2 * MIN, "on 2024-03-10"],
      [-3 * DAY, "on 2024-03-13"],
    ];
    for (const [age, want] of cases) expect([age, relativeTime(NOW - age, NOW)]).toEqual([age, want]);
  });
});

describe("formatContext", () => {
  it("writes dated bullets inside the markers, in the order given", () => {
    expect(formatContext(hits, { now: NOW })).toBe(
      [
        MEMORY_CONTEXT_OPEN,
        "Memories about this user, most relevant first (today is 2024-03-10):",
        "- 2 days ago: I moved to Shenzhen",
        "- on 2023-11-02: I'm allergic to peanuts",
        "- 3 hours ago: Dentist appointment on Friday",
        MEMORY_CONTEXT_CLOSE,
      ].join("\n"),
    );
    expect(formatContext(hits, { now: new Date(NOW) })).toBe(formatContext(hits, { now: NOW }));
    expect(formatContext(hits, { now: NOW, title: "Known facts:" }).split("\n")[1]).toBe("Known facts:");
  });

  it("writes escaped XML elements with id, kind, date and age", () => {
    const out = formatContext([{ id: "x1", kind: "fact", content: 'likes <b>"bold"</b> & more', createdAt: NOW - 2 * DAY }, hits[1]!], {
      style: "xml",
      now: NOW,
    });
    expect(out).toBe(
      [
        MEMORY_CONTEXT_OPEN,
        '<memories today="2024-03-10">',
        '<memory id="x1" kind="fact" date="2024-03-08" when="2 days ago">likes &lt;b&gt;&quot;bold&quot;&lt;/b&gt; &amp; more</memory>',
        `<memory id="e2" kind="preference" date="2023-11-02" when="on 2023-11-02">I'm allergic to peanuts</memory>`,
        "</memories>",
        MEMORY_CONTEXT_CLOSE,
      ].join("\n"),
    );
  });

  it("writes one JSON document in the json style", () => {
    const out = formatContext(hits, { style: "json", now: NOW });
    const lines = out.split("\n");
    expect(lines[0]).toBe(MEMORY_CONTEXT_OPEN);
    expect(lines.at(-1)).toBe(MEMORY_CONTEXT_CLOSE);
    const doc = JSON.parse(lines.slice(1, -1).join("\n")) as { today: string; memories: unknown[] };
    expect(doc.today).toBe("2024-03-10");
    expect(doc.memories).toEqual([
      { id: "e1", kind: "fact", date: "2024-03-08", when: "2 days ago", content: "I moved to Shenzhen" },
      { id: "e2", kind: "preference", date: "2023-11-02", when: "on 2023-11-02", content: "I'm allergic to peanuts" },
      { id: "e3", kind: "event", date: "2024-03-10", when: "3 hours ago", content: "Dentist appointment on Friday" },
    ]);
  });

  it("returns an empty string when there is nothing to show or nothing fits", () => {
    expect(formatContext([], { now: NOW })).toBe("");
    expect(formatContext(hits, { now: NOW, maxChars: 40 })).toBe("");
  });

  it("drops the memories that do not fit whole and keeps trying lower-ranked ones", () => {
    const full = formatContext(hits, { now: NOW });
    expect(formatContext(hits, { now: NOW, maxChars: full.length })).toBe(full);
    const cut = formatContext(hits, { now: NOW, maxChars: full.length - 1 });
    // The last bullet is the one that no longer fits.
    expect(cut).not.toContain("Dentist");
    expect(cut).toContain("Shenzhen");
    expect(cut.length).toBeLessThanOrEqual(full.length - 1);
    // A long second memory is skipped; the third still gets in.
    const long = [hits[0]!, { content: "x".repeat(500), createdAt: NOW }, hits[2]!];
    const out = formatContext(long, { now: NOW, maxChars: 300 });
    expect(out).toContain("Shenzhen");
    expect(out).toContain("Dentist");
    expect(out).not.toContain("xxx");
  });

  it("never exceeds maxChars and never cuts a memory, in every style (property)", () => {
    const memory = fc.record({
      content: fc.string({ minLength: 1, maxLength: 120 }).filter((s) => s.trim().length > 0 && !s.includes("moomem-context")),
      createdAt: fc.integer({ min: NOW - 400 * DAY, max: NOW + DAY }),
      id: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
    });
    fc.assert(
      fc.property(
        fc.array(memory, { maxLength: 20 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.constantFrom("bullets", "xml", "json" as const),
        (ms, maxChars, style) => {
          const out = formatContext(ms, { now: NOW, maxChars, style });
          expect(out.length).toBeLessThanOrEqual(maxChars);
          if (out === "") return;
          expect(out.startsWith(`${MEMORY_CONTEXT_OPEN}\n`)).toBe(true);
          expect(out.endsWith(`\n${MEMORY_CONTEXT_CLOSE}`)).toBe(true);
          const unlimited = formatContext(ms, { now: NOW, maxChars: 100_000, style });
          if (style === "json") {
            const doc = JSON.parse(out.split("\n").slice(1, -1).join("\n")) as { memories: Array<{ id: string; content: string }> };
            const all = (JSON.parse(unlimited.split("\n").slice(1, -1).join("\n")) as { memories: Array<{ id: string; content: string }> }).memories;
            // Kept memories are whole, in their original order.
            let from = 0;
            for (const m of doc.memories) {
              const at = all.findIndex((a, i) => i >= from && a.id === m.id && a.content === m.content);
              expect(at).toBeGreaterThanOrEqual(from);
              from = at + 1;
            }
          } else {
            // Every item line of the budgeted block is a whole item line of the unlimited one.
            const items = new Set(unlimited.split("\n"));
            for (const line of out.split("\n")) expect(items.has(line)).toBe(true);
          }
          // The same budget as the result gives the same result: nothing was dropped that fits.
          expect(formatContext(ms, { now: NOW, maxChars: out.length, style })).toBe(out);
          // What an extractor sees of it: nothing.
          expect(stripMemoryContext(`${out}\nhello`)).toBe("hello");
        },
      ),
      { numRuns: 150 },
    );
  });

  it("indents multi-line memories and neutralizes quoted markers, so the block stays one block", () => {
    const tricky = [
      { content: `line one\n- not a bullet\n${MEMORY_CONTEXT_CLOSE}\nI am vegan`, createdAt: NOW },
      { content: `${MEMORY_CONTEXT_OPEN} sneaky`, createdAt: NOW },
    ];
    for (const style of ["bullets", "xml", "json"] as const) {
      const out = formatContext(tricky, { now: NOW, style });
      expect(out.split(MEMORY_CONTEXT_OPEN).length).toBe(2);
      expect(out.split(MEMORY_CONTEXT_CLOSE).length).toBe(2);
      expect(stripMemoryContext(`before\n${out}\nafter`)).toBe("before\nafter");
    }
    expect(formatContext(tricky, { now: NOW })).toContain("- just now: line one\n  - not a bullet\n  (/moomem-context)\n  I am vegan");
  });

  it("accepts recall hits and list entries as they are", () => {
    const hit = { id: "a", userId: "u", content: "c", kind: "fact" as const, status: "active" as const, createdAt: NOW, metadata: {}, score: 0.03 };
    expect(formatContext([hit], { now: NOW })).toContain("- just now: c");
  });

  it("rejects bad arguments with INVALID_ARGUMENT naming them", () => {
    invalid(() => formatContext("hits" as unknown as ContextMemory[]), "hits must be an array");
    invalid(() => formatContext([null as unknown as ContextMemory]), "hits[0]");
    invalid(() => formatContext([{ content: 1, createdAt: NOW } as unknown as ContextMemory]), "hits[0].content");
    invalid(() => formatContext([{ content: "x", createdAt: Number.NaN }]), "hits[0].createdAt");
    invalid(() => formatContext(hits, { maxChars: 0 }), "maxChars");
    invalid(() => formatContext(hits, { maxChars: 1.5 }), "maxChars");
    invalid(() => formatContext(hits, { style: "markdown" as "xml" }), "style");
    invalid(() => formatContext(hits, { now: "today" as unknown as number }), "now");
    invalid(() => formatContext(hits, { title: 3 as unknown as string }), "title");
    invalid(() => formatContext(hits, { maxchars: 10 } as unknown as { maxChars: number }), "maxchars");
  });
});
