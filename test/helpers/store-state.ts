// A comparable picture of everything a store holds, to assert that a rejected call changed nothing.

import type { MemoryStore } from "../../src/index.ts";

/**
 * The store's export (every entry of every user, in the on-disk shape) plus its counters and last write
 * time, as one string. Two equal pictures mean no entry, status, vector or metadata changed and nothing
 * was appended. Open the store with a FixedClock: the export header carries the clock's time.
 */
export async function storeState(mem: MemoryStore): Promise<string> {
  const lines: string[] = [];
  for await (const line of mem.export()) lines.push(line);
  const { total, active, superseded, deleted, unstructured, users, lastWriteAt } = await mem.stats();
  return JSON.stringify({ lines, total, active, superseded, deleted, unstructured, users, lastWriteAt });
}
