// How a read-only inspector reads in what another process (the agent) wrote since: one function, so the mechanism changes in one place.

import type { MemoryStore } from "../index.ts";

/** What {@link catchUp} works on: the store being inspected. */
export interface CatchUpTarget {
  readonly store: MemoryStore;
}

/**
 * Brings a read-only store up to date with what its writer committed since the last call, and says
 * whether anything changed. `MemoryStore.refresh()` reads only what was committed since (new journal
 * lines; the whole store again only after a compaction), so a catch-up costs two `stat`s when nothing
 * changed and about the size of the new writes otherwise.
 */
export function catchUp(target: CatchUpTarget): Promise<boolean> {
  return target.store.refresh();
}
