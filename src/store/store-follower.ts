// A read-only store following its writer: applies what the backend's refresh() found, and (with `follow`) catches up before each call.

import type { EntryRecord, TornTail } from "../types.ts";
import type { EmbedderIdentity, PersistenceBackend, RefreshedState } from "../persistence/backend.ts";
import { MoomemError } from "../errors.ts";
import type { EntryState } from "../state/entry-state.ts";
import { withLifecycle } from "../state/lifecycle.ts";

function sameVector(a: Float32Array | null, b: Float32Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two versions of an entry are the same in every field. */
function sameRecord(a: EntryRecord, b: EntryRecord): boolean {
  return (
    a.seq === b.seq &&
    a.userId === b.userId &&
    a.content === b.content &&
    a.kind === b.kind &&
    a.key === b.key &&
    a.status === b.status &&
    a.createdAt === b.createdAt &&
    a.updatedAt === b.updatedAt &&
    a.supersededBy === b.supersededBy &&
    JSON.stringify(a.metadata) === JSON.stringify(b.metadata) &&
    JSON.stringify(a.lifecycle) === JSON.stringify(b.lifecycle) &&
    sameVector(a.embedding, b.embedding)
  );
}

/**
 * Brings `state` to what `found` says; returns whether anything changed.
 * Versions that changed are removed before the new ones go in, so an entry
 * that moved to a new seq never collides with the one it replaced.
 */
export function applyRefreshed(state: EntryState, found: RefreshedState): boolean {
  const incoming: EntryRecord[] = [];
  for (const read of found.entries) {
    const entry = withLifecycle(read);
    const current = state.get(entry.id);
    if (current === undefined || !sameRecord(current, entry)) incoming.push(entry);
  }
  const gone: string[] = [];
  if (found.replace) {
    const kept = new Set(found.entries.map((e) => e.id));
    for (const user of [...state.users()]) for (const e of state.entriesOf(user)) if (!kept.has(e.id)) gone.push(e.id);
  }
  for (const id of gone) state.remove(id);
  for (const entry of incoming) if (state.get(entry.id) !== undefined) state.remove(entry.id);
  // Read from the writer's files, like an open's entries: loaded as stored (a store must follow what it could open).
  for (const entry of incoming) state.load(entry);
  return gone.length > 0 || incoming.length > 0;
}

/**
 * What a store opened read-only needs to follow a writer: `refresh()` (one
 * at a time), and with `follow` a catch-up before every call. What was torn
 * off at the last full read is kept here too, for `stats()`.
 */
export class StoreFollower {
  readonly #backend: PersistenceBackend;
  readonly #state: EntryState;
  readonly #readOnly: boolean;
  readonly #follow: boolean;
  readonly #identity: EmbedderIdentity;
  #tornTails: TornTail[];
  #running: Promise<boolean> | null = null;
  #again: Promise<boolean> | null = null;

  constructor(
    backend: PersistenceBackend,
    state: EntryState,
    options: { readOnly: boolean; follow: boolean; identity: EmbedderIdentity; tornTails: TornTail[] },
  ) {
    this.#backend = backend;
    this.#state = state;
    this.#readOnly = options.readOnly;
    this.#follow = options.follow;
    this.#identity = options.identity;
    this.#tornTails = options.tornTails;
  }

  get tornTails(): TornTail[] {
    return this.#tornTails.map((t) => ({ ...t, entries: t.entries.map((e) => ({ ...e })) }));
  }

  /** With `follow`, the catch-up a call waits for first; null when the store does not follow. */
  beforeCall(): Promise<unknown> | null {
    return this.#follow ? this.refresh() : null;
  }

  /** Applies what the writer committed since the last read; false for a writer, or a backend with nothing to follow. */
  refresh(): Promise<boolean> {
    if (!this.#readOnly || this.#backend.refresh === undefined) return Promise.resolve(false);
    if (this.#running !== null) {
      // One read at a time; calls that come meanwhile share the next one, which starts after all of them.
      this.#again ??= this.#running.then(
        () => this.#start(),
        () => this.#start(),
      );
      return this.#again;
    }
    return this.#start();
  }

  #start(): Promise<boolean> {
    this.#again = null;
    const run = this.#refreshNow().finally(() => {
      if (this.#running === run) this.#running = null;
    });
    this.#running = run;
    return run;
  }

  async #refreshNow(): Promise<boolean> {
    const found = await this.#backend.refresh!();
    if (found === null) return false;
    const stored = found.embedder;
    if (stored !== null && (stored.id !== this.#identity.id || stored.dim !== this.#identity.dim)) {
      throw new MoomemError(
        "EMBEDDER_MISMATCH",
        `the writer of ${this.#backend.location} now stores vectors of embedder ${stored.id} (${stored.dim} dims), but this reader uses ${this.#identity.id} (${this.#identity.dim} dims); open the store again with that embedder`,
      );
    }
    if (found.replace) this.#tornTails = found.tornTails ?? [];
    return applyRefreshed(this.#state, found);
  }
}
