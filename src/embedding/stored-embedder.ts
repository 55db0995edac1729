// An embedder that takes on the identity a store recorded, for tools that only read or edit what is stored.

import { MoomemError } from "../errors.ts";
import type { Embedder } from "../types.ts";

/** What a store records about the embedder that made its vectors (the shape of persistence/backend.ts's `EmbedderIdentity`). */
type StoredIdentity = { id: string; dim: number };
import { HashingEmbedder } from "./hashing-embedder.ts";

/**
 * Opens a store whatever embedder made its vectors, for commands that never compute one: list, history,
 * profile, stats, export, forget and restore. `MemoryStore.openWith` calls {@link adopt} with the identity
 * the store recorded, so the open never fails with `EMBEDDER_MISMATCH`, snapshots keep naming the real
 * embedder, and an export's header names it too. The CLI uses it so that a store made with `--embed`
 * can be inspected without the provider's settings (README, "The CLI").
 *
 * A store that recorded no embedder yet (new or empty), or the built-in one, gets the built-in
 * {@link HashingEmbedder}, like a default open. Any other identity has no vectors to give: `embed`
 * rejects with `EMBEDDER_MISMATCH`, so never use it for add, recall or import.
 */
export class StoredEmbedder implements Embedder {
  readonly #builtIn = new HashingEmbedder();
  #stored: StoredIdentity | null = null;

  get dim(): number {
    return this.#stored?.dim ?? this.#builtIn.dim;
  }

  get id(): string {
    return this.#stored?.id ?? this.#builtIn.id;
  }

  /** Takes on the identity the store recorded (null: none yet). Called by the store when it opens. */
  adopt(stored: StoredIdentity | null): void {
    const builtIn = stored === null || (stored.id === this.#builtIn.id && stored.dim === this.#builtIn.dim);
    this.#stored = builtIn ? null : { id: stored.id, dim: stored.dim };
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.#stored === null) return this.#builtIn.embed(texts);
    return Promise.reject(
      new MoomemError(
        "EMBEDDER_MISMATCH",
        `this store was opened only to read or edit what it holds: its vectors come from ${this.#stored.id} (${this.#stored.dim} dims), which is not available here to embed new text; open it with that embedder`,
      ),
    );
  }
}
