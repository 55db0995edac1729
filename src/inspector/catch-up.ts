// How a read-only inspector reads in what another process (the agent) wrote since: one function, so the mechanism changes in one place.

import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStore } from "../store/memory-store.ts";
import { LOCK, STORE_FOLDER, TEMP_SUFFIX } from "../persistence/file-layout.ts";

/** What {@link catchUp} works on: the store being inspected, and a way to open it again. */
export interface CatchUpTarget {
  /** The folder given to `MemoryStore.open` (its files are in `<dir>/moomem/`). */
  readonly dir: string;
  /** The store as it is now. */
  readonly store: MemoryStore;
  /** Opens the store again read-only and puts the new instance in place of `store`. */
  reopen(): Promise<void>;
  /** What {@link catchUp} saw last time (opaque to everyone else); null before the first look. */
  seen: string | null;
}

/**
 * Brings a read-only store up to date with what its writer committed since the last call, and
 * says whether anything changed.
 *
 * For now: compares the size and modification time of every file in `<dir>/moomem/` with what it
 * saw last time, and when they differ opens the store again (the open reads the whole store: at
 * 100,000 entries that takes seconds, which is acceptable for an inspector and only happens when
 * something was written).
 *
 * SWITCH TO `store.refresh()`: when `MemoryStore.refresh(): Promise<boolean>` lands (readers that
 * follow a writer; it reads only what the writer committed since), this whole body becomes
 * `return target.store.refresh();`. Then `storeFingerprint`, `CatchUpTarget.reopen` / `seen`, and
 * in src/inspector/store-holder.ts `reopen()` and the fingerprint taken in `StoreHolder.open` can
 * go (the holder's leases keep working: the store is simply never replaced). Nothing else in the
 * inspector knows how catching up works.
 */
export async function catchUp(target: CatchUpTarget): Promise<boolean> {
  // The fingerprint is taken before the reopen: a write landing during the reopen then shows as a change next time.
  const now = await storeFingerprint(target.dir);
  if (target.seen === null) {
    target.seen = now;
    return false;
  }
  if (now === target.seen) return false;
  await target.reopen();
  target.seen = now;
  return true;
}

/** Name, size and modification time (ns) of each store file; the writer's lock and temp files do not count. */
export async function storeFingerprint(dir: string): Promise<string> {
  const folder = join(dir, STORE_FOLDER);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return "no store yet";
    throw error;
  }
  const parts: string[] = [];
  for (const name of names.sort()) {
    if (name === LOCK || name.startsWith(`${LOCK}.`) || name.endsWith(TEMP_SUFFIX)) continue;
    try {
      const s = await stat(join(folder, name), { bigint: true });
      parts.push(`${name}:${s.size}:${s.mtimeNs}`);
    } catch (error) {
      // A compaction deleted it between readdir and stat: that is a change too.
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
      parts.push(`${name}:gone`);
    }
  }
  return parts.join("|");
}
