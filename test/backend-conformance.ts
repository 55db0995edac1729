// Our own backends' conformance tests run the suite moomem ships (`moomem/testing`) with vitest's functions.

import { describe, it, expect, afterEach } from "vitest";
import type { PersistenceBackend } from "../src/persistence/backend.ts";
import { testBackend as registerSuite, type BackendTestOptions } from "../src/testing.ts";

export { makeEntry } from "../src/testing.ts";

/** {@link registerSuite} with vitest as the runner (bun test and the Deno shim map these imports to theirs). */
export function testBackend<B extends PersistenceBackend>(
  name: string,
  makeBackend: () => B | Promise<B>,
  reopen: (previous: B) => B | Promise<B>,
  options: BackendTestOptions<B> = {},
): void {
  registerSuite({ describe, it, expect, afterEach }, name, makeBackend, reopen, options);
}
