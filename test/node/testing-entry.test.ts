// `moomem/testing` as a backend author uses it: imported from the built package, driven by any test runner.

import { describe, it, expect, beforeAll } from "vitest";
import { ensureBuilt } from "./helpers/built-package.ts";
import type * as Testing from "../../src/testing.ts";
import type * as Moomem from "../../src/index.ts";
import type { PersistenceBackend } from "../../src/persistence/backend.ts";

// Through the package's exports, as a user's import resolves them (a variable, so the type check needs no dist/).
const TESTING = "moomem/testing";
const MOOMEM = "moomem";

beforeAll(async () => {
  await ensureBuilt();
}, 240_000);

/** A runner that only collects: the suite's tests, then run one by one here with vitest's expect. */
function collectingRunner(): { runner: Testing.TestRunner; tests: Array<{ name: string; body: () => Promise<void> }>; hooks: Array<() => Promise<void>> } {
  const tests: Array<{ name: string; body: () => Promise<void> }> = [];
  const hooks: Array<() => Promise<void>> = [];
  const prefix: string[] = [];
  const runner: Testing.TestRunner = {
    describe: (name, body) => {
      prefix.push(name);
      body();
      prefix.pop();
    },
    it: (name, body) => tests.push({ name: [...prefix, name].join(" > "), body }),
    afterEach: (hook) => hooks.push(hook),
    expect,
  };
  return { runner, tests, hooks };
}

describe("moomem/testing, built", () => {
  it("registers the conformance suite with any runner, and the built MemoryBackend passes it", async () => {
    const { testBackend, makeEntry } = (await import(TESTING)) as typeof Testing;
    const { MemoryBackend } = (await import(MOOMEM)) as typeof Moomem;
    const { runner, tests, hooks } = collectingRunner();
    const extra: string[] = [];
    testBackend(
      runner,
      "MemoryBackend (built)",
      () => new MemoryBackend(),
      (previous) => previous,
      { additionalTests: () => extra.push("called") },
    );
    expect(extra).toEqual(["called"]);
    expect(tests.length).toBeGreaterThanOrEqual(12);
    for (const test of tests) {
      await test.body();
      for (const hook of hooks) await hook();
    }
    expect(makeEntry("a", 1)).toMatchObject({ id: "a", seq: 1, metadata: {}, lifecycle: {}, embedding: null });
  });

  it("fails a backend that loses what it was given (here: every entry's lifecycle)", async () => {
    const { testBackend } = (await import(TESTING)) as typeof Testing;
    const { MemoryBackend } = (await import(MOOMEM)) as typeof Moomem;
    /** Keeps everything but the lifecycle, as a backend written before entry format 4 would. */
    class Forgetful extends MemoryBackend {
      override append(batches: Parameters<PersistenceBackend["append"]>[0]): Promise<void> {
        return super.append(batches.map((b) => ({ ...b, entries: b.entries.map((e) => ({ ...e, lifecycle: {} })) })));
      }
    }
    const { runner, tests, hooks } = collectingRunner();
    testBackend(
      runner,
      "Forgetful",
      () => new Forgetful(),
      (previous) => previous,
    );
    const failed: string[] = [];
    for (const test of tests) {
      await test.body().catch(() => failed.push(test.name));
      for (const hook of hooks) await hook();
    }
    expect(failed).toContain("backend conformance: Forgetful > gives back every field of every entry after a reopen");
  });
});
