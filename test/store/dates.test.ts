// Times are limited to what a JavaScript Date can hold (±8.64e15 ms) on every path, so every time can be printed.

import { describe, it, expect } from "vitest";
import { MemoryStore, FixedClock, formatContext, relativeTime } from "../../src/index.ts";
import { MAX_TIME_MS, checkTime } from "../../src/validation/arguments.ts";
import { callMemoryTool } from "../../src/mcp/memory-tools.ts";
import { rejectsWith, throwsWith } from "../helpers/scripted.ts";
import { storeState } from "../helpers/store-state.ts";

const T0 = Date.UTC(2026, 0, 1);
const OUT_OF_RANGE = [1e300, -1e300, MAX_TIME_MS + 1, -MAX_TIME_MS - 1, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER];

describe("dates within the range of a Date", () => {
  it("rejects an observedAt a Date cannot hold, and changes nothing", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(T0) });
    await mem.add("u", "I like tea");
    const before = await storeState(mem);
    for (const observedAt of [...OUT_OF_RANGE, new Date(Number.NaN)]) {
      const err = await rejectsWith(mem.add("u", "I like coffee", { observedAt }), "INVALID_ARGUMENT");
      expect(err.message).toContain("observedAt");
      expect(err.message).toContain("8.64e15");
    }
    expect(await storeState(mem)).toBe(before);
    await mem.close();
  });

  it("accepts the very first and last times a Date can hold, and every reader prints them", async () => {
    const mem = await MemoryStore.open(":memory:", { clock: new FixedClock(T0) });
    await mem.add("u", "the oldest memory", { observedAt: -MAX_TIME_MS });
    await mem.add("u", "the newest memory", { observedAt: new Date(MAX_TIME_MS) });
    const entries = await mem.list("u", { since: -MAX_TIME_MS, until: MAX_TIME_MS });
    expect(entries.map((e) => e.createdAt)).toEqual([-MAX_TIME_MS, MAX_TIME_MS]);
    const hits = await mem.recall("u", "memory", { since: new Date(-MAX_TIME_MS), until: new Date(MAX_TIME_MS) });
    expect(hits).toHaveLength(2);
    const block = formatContext(hits, { now: T0 });
    expect(block).toContain("-271821-04-20T00:00:00.000Z");
    expect(block).toContain("+275760-09-13T00:00:00.000Z");
    for (const tool of ["list", "recall"]) {
      const result = await callMemoryTool(mem, { userId: "u" }, tool, tool === "recall" ? { query: "memory" } : {}, () => T0);
      expect(result.isError).toBeUndefined();
      expect(JSON.stringify(result.structuredContent)).toContain("+275760-09-13T00:00:00.000Z");
    }
    await mem.close();
  });

  it("rejects since/until a Date cannot hold with INVALID_ARGUMENT (a RangeError before), also when since > until", async () => {
    const mem = await MemoryStore.open(":memory:");
    for (const [since, until] of [
      [1e300, 1e299],
      [0, 1e300],
      [-1e300, 0],
      [MAX_TIME_MS + 1, MAX_TIME_MS + 2],
    ] as const) {
      await rejectsWith(mem.list("u", { since, until }), "INVALID_ARGUMENT");
      await rejectsWith(mem.recall("u", "x", { since, until }), "INVALID_ARGUMENT");
    }
    const err = await rejectsWith(mem.list("u", { since: MAX_TIME_MS, until: -MAX_TIME_MS }), "INVALID_ARGUMENT");
    expect(err.message).toContain("is after until");
    await mem.close();
  });

  it("checkTime: the one check, for Dates from any realm, invalid Dates and Date impostors", () => {
    expect(checkTime(new Date(T0), "t")).toBe(T0);
    expect(checkTime(-0, "t")).toBe(-0);
    throwsWith(() => checkTime(new Date(Number.NaN), "t"), "INVALID_ARGUMENT", "an invalid Date");
    // An object that only looks like a Date is not one.
    throwsWith(() => checkTime({ getTime: () => T0 }, "t"), "INVALID_ARGUMENT");
    throwsWith(() => checkTime(Object.create(Date.prototype), "t"), "INVALID_ARGUMENT");
    for (const bad of OUT_OF_RANGE) throwsWith(() => checkTime(bad, "t"), "INVALID_ARGUMENT", "8.64e15");
  });

  it("FixedClock stays within the range", () => {
    throwsWith(() => new FixedClock(1e300), "INVALID_ARGUMENT");
    const clock = new FixedClock(MAX_TIME_MS - 10);
    throwsWith(() => clock.advance(11), "INVALID_ARGUMENT");
    clock.advance(10);
    expect(clock.now()).toBe(MAX_TIME_MS);
    throwsWith(() => clock.set(-MAX_TIME_MS - 1), "INVALID_ARGUMENT");
  });

  it("relativeTime prints any finite time, and rejects what is not a number", () => {
    expect(relativeTime(1e300, T0)).toBe("on unknown date");
    throwsWith(() => relativeTime("2024-01-01" as never, T0), "INVALID_ARGUMENT");
    throwsWith(() => relativeTime(T0, Number.NaN), "INVALID_ARGUMENT");
  });
});
