// Same inputs, same outputs on Node, Bun, Deno and Chromium: the parity scenario against results recorded on Node.

import { describe, it, expect } from "vitest";
import { runParityScenario } from "./parity-scenario.ts";
import expected from "./fixtures/parity-expected.json" with { type: "json" };

describe("runtime parity", () => {
  it("gives the recall results recorded on Node (regenerate with `npx tsx scripts/parity-fixture.ts`)", async () => {
    const actual = await runParityScenario();
    // Section by section, so a failure points at what drifted.
    expect(actual.adds).toEqual(expected.adds);
    expect(actual.lists).toEqual(expected.lists);
    expect(actual.counts).toEqual(expected.counts);
    expect(actual.recalls.length).toBe(expected.recalls.length);
    for (let i = 0; i < actual.recalls.length; i++) {
      const want = expected.recalls[i];
      const got = actual.recalls[i];
      expect({ user: got?.user, query: got?.query, mode: got?.mode }).toEqual({ user: want?.user, query: want?.query, mode: want?.mode });
      expect(got?.hits).toEqual(want?.hits);
    }
  });

  it("recorded a scenario that finds things", () => {
    // Guards against a fixture generated from a broken build: most queries must have hits.
    const withHits = expected.recalls.filter((r) => r.hits.length > 0).length;
    expect(withHits).toBeGreaterThan(expected.recalls.length * 0.7);
    expect(expected.counts.superseded).toBeGreaterThan(0);
    expect(expected.counts.deleted).toBe(1);
  });
});
