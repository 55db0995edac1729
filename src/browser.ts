// The browser entry: the universal API, with IndexedDB as the default storage.

import { MemoryStore as CoreStore } from "./store/memory-store.ts";
import type { OpenOptions } from "./store/open-options.ts";
import { IndexedDbBackend } from "./persistence/indexeddb/indexeddb-backend.ts";

export * from "./index.ts";
export { IndexedDbBackend } from "./persistence/indexeddb/indexeddb-backend.ts";
export type { IndexedDbBackendOptions } from "./persistence/indexeddb/indexeddb-backend.ts";

/**
 * {@link CoreStore} whose `open(name)` keeps the store in IndexedDB (database
 * `moomem:<name>`), so memories survive a page reload. `":memory:"` keeps
 * them in memory.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "moomem/browser";
 * const mem = await MemoryStore.open("my-agent");
 * ```
 */
export class MemoryStore extends CoreStore {
  static override open(path: string, options?: OpenOptions): Promise<CoreStore> {
    // sync "always" waits for the browser's flush to disk; "interval"/"none" accept the relaxed guarantee.
    return CoreStore.openWith(
      path,
      options,
      (name, o) => new IndexedDbBackend(name, { readOnly: o.readOnly, durability: o.sync === "always" ? "strict" : "relaxed" }),
    );
  }
}
