// The Node/Bun/Deno entry: the universal API, with crash-safe files as the default storage.

import { MemoryStore as CoreStore } from "./store/memory-store.ts";
import type { OpenOptions } from "./store/open-options.ts";
import { FileBackend } from "./persistence/file/file-backend.ts";

export * from "./index.ts";
export { FileBackend } from "./persistence/file/file-backend.ts";
export type { FileBackendOptions } from "./persistence/file/file-backend.ts";

/**
 * {@link CoreStore} whose `open(dir)` keeps the store in files under
 * `<dir>/moomem/` (journal + snapshots, crash-safe). `":memory:"` keeps it in
 * memory.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "moomem";
 * const mem = await MemoryStore.open("./memory");
 * ```
 */
export class MemoryStore extends CoreStore {
  static override open(path: string, options?: OpenOptions): Promise<CoreStore> {
    return CoreStore.openWith(path, options, (dir, o) => {
      const fileOptions: ConstructorParameters<typeof FileBackend>[1] = { sync: o.sync, syncIntervalMs: o.syncIntervalMs, readOnly: o.readOnly };
      if (o.compactAfterBytes !== undefined) fileOptions.compactAfterBytes = o.compactAfterBytes;
      return new FileBackend(dir, fileOptions);
    });
  }
}
