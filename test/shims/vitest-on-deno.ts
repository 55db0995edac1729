// Lets the shared vitest-style suite run under `deno test`: describe/it from Deno's node:test, expect/vi from vitest.
//
// vitest's own describe/it need vitest's runner (they fail under `deno test`), but its `expect`
// works standalone. deno.test.json maps "vitest" here for test files and back to npm:vitest
// for this folder.

import * as nodeTest from "node:test";

export { expect, vi } from "vitest";

type TestFn = () => unknown;
/** vitest accepts a timeout number or an options object as the third argument. */
type TestOptions = number | { timeout?: number };

/** The suite's default timeouts (hang detectors; vitest.config.ts has the same values). */
const TEST_TIMEOUT = 300_000;
const HOOK_TIMEOUT = 600_000;

function toOptions(options: TestOptions | undefined, skip = false): { timeout?: number; skip?: boolean } {
  const out: { timeout?: number; skip?: boolean } = { timeout: TEST_TIMEOUT };
  if (typeof options === "number") out.timeout = options;
  else if (options?.timeout !== undefined) out.timeout = options.timeout;
  if (skip) out.skip = true;
  return out;
}

// Wrapped so node:test never sees a function with parameters (it would treat one as a done-callback test).
function wrap(fn: TestFn | undefined): () => Promise<void> {
  return async () => {
    if (fn !== undefined) await fn();
  };
}

function runTest(name: string, fn?: TestFn, options?: TestOptions): void {
  void nodeTest.it(name, toOptions(options), wrap(fn));
}

function skipTest(name: string, fn?: TestFn, options?: TestOptions): void {
  void nodeTest.it(name, toOptions(options, true), wrap(fn));
}

/** vitest's `it` (and `test`): name, body, optional timeout. No `it.each`: use a loop. */
export const it: typeof runTest & {
  skip: typeof skipTest;
  todo: (name: string) => void;
  skipIf: (condition: unknown) => typeof runTest;
  runIf: (condition: unknown) => typeof runTest;
} = Object.assign(runTest, {
  skip: skipTest,
  todo: (name: string): void => {
    void nodeTest.it(name, { todo: true }, () => undefined);
  },
  skipIf: (condition: unknown): typeof runTest => (condition ? skipTest : runTest),
  runIf: (condition: unknown): typeof runTest => (condition ? runTest : skipTest),
});

export const test: typeof it = it;

function runSuite(name: string, fn: () => void): void {
  void nodeTest.describe(name, fn);
}

/** vitest's `describe`: synchronous body that registers tests. */
export const describe: typeof runSuite & {
  skip: typeof runSuite;
  skipIf: (condition: unknown) => typeof runSuite;
  runIf: (condition: unknown) => typeof runSuite;
} = Object.assign(runSuite, {
  skip: (name: string, fn: () => void): void => {
    void nodeTest.describe(name, { skip: true }, fn);
  },
  skipIf: (condition: unknown): typeof runSuite => (condition ? (name: string, fn: () => void) => void nodeTest.describe(name, { skip: true }, fn) : runSuite),
  runIf: (condition: unknown): typeof runSuite => (condition ? runSuite : (name: string, fn: () => void) => void nodeTest.describe(name, { skip: true }, fn)),
});

/** vitest hooks take an optional timeout (ms) as second argument. */
function hookOptions(timeout: number | undefined): { timeout?: number } {
  return { timeout: timeout ?? HOOK_TIMEOUT };
}

/** Runs a setup hook; a function it returns is vitest's teardown, run by the matching after-hook. */
function withTeardown(fn: TestFn): { setup: () => Promise<void>; teardown: () => Promise<void> } {
  let teardown: unknown = undefined;
  return {
    setup: async () => {
      teardown = await fn();
    },
    teardown: async () => {
      const run = teardown;
      teardown = undefined;
      if (typeof run === "function") await (run as () => unknown)();
    },
  };
}

export function beforeAll(fn: TestFn, timeout?: number): void {
  const hook = withTeardown(fn);
  nodeTest.before(hook.setup, hookOptions(timeout));
  nodeTest.after(hook.teardown, hookOptions(timeout));
}
export function afterAll(fn: TestFn, timeout?: number): void {
  nodeTest.after(wrap(fn), hookOptions(timeout));
}
export function beforeEach(fn: TestFn, timeout?: number): void {
  const hook = withTeardown(fn);
  nodeTest.beforeEach(hook.setup, hookOptions(timeout));
  nodeTest.afterEach(hook.teardown, hookOptions(timeout));
}
export function afterEach(fn: TestFn, timeout?: number): void {
  nodeTest.afterEach(wrap(fn), hookOptions(timeout));
}
