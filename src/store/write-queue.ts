// Serialises every write of a store, groups durable writes (group commit) and rolls back failed ones.

import { WriteConflict, type Batch, type PersistenceBackend } from "../persistence/backend.ts";
import type { EntryRecord } from "../types.ts";
import { MoomemError, describeError } from "../errors.ts";
import { Change, type EntryState } from "../state/entry-state.ts";
import type { SeqCounter } from "../state/ids.ts";

/** Entries per journal line at most; larger operations are written as several batches in one group, chained by `continues`. */
export const MAX_BATCH_ENTRIES = 512;

/** Attempts of a write whose users another process kept changing (a shared backend's `WriteConflict`), before the caller gets `WRITE_CONFLICT`. */
export const MAX_WRITE_ATTEMPTS = 8;
/** The first retry waits up to this many ms (at random), each next one up to twice as long: 2.5 s in all at most. */
const RETRY_PAUSE_MS = 10;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a queue over a backend several processes write needs (see `SharedWriting` in persistence/backend.ts). */
export interface SharedQueue {
  /** Refilled from the backend before each write is planned. */
  seqs: SeqCounter;
  /** Brings these users up to what the backend holds; runs with nothing staged and nothing being planned. */
  catchUp(users: readonly string[]): Promise<void>;
}

interface Staged {
  records: EntryRecord[];
  /** The one user the operation wrote for, or null. */
  userId: string | null;
  change: Change;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** Settles true once durable, false once rolled back; never rejects. */
  settled: Promise<boolean>;
}

/**
 * One operation at a time computes its change against the current state
 * (which includes earlier operations still being written) and applies it;
 * its batch then joins the next group the committer writes with one append
 * (one write, one sync). The operation's promise resolves once its group is
 * durable. When a group fails, that group and every operation staged after it
 * (computed on top of it) are undone in reverse order and rejected, so a
 * failed write is never visible. A group refused for a `WriteConflict` undoes only the
 * writes of the users that moved (and those planned on them): the others are written
 * again as planned.
 */
export class WriteQueue {
  readonly #state: EntryState;
  readonly #backend: PersistenceBackend;
  readonly #afterGroup: () => void;
  #tail: Promise<void> = Promise.resolve();
  #staged: Staged[] = [];
  #flushing = false;
  #preparing = false;
  #failure: { error: unknown } | null = null;
  readonly #shared: SharedQueue | null;
  #beforeWrite: (userId: string) => void = () => {};

  /** `shared`: for a backend several processes write (seqs from the backend, catch-up and retry on a conflict). */
  constructor(state: EntryState, backend: PersistenceBackend, afterGroup: () => void, shared: SharedQueue | null = null) {
    this.#state = state;
    this.#backend = backend;
    this.#afterGroup = afterGroup;
    this.#shared = shared;
  }

  /**
   * Queues a write. `op` applies its changes through `change.insert` and
   * `change.put` and returns the caller's result; an op that throws, or whose
   * change links an entry to another user's entry or to none, has its changes
   * undone. With `userId`, the write is for that user only: its change refuses
   * any other user's entry, and its batches name the user (`Batch.userId`).
   *
   * On a shared backend, a write refused because another process changed one of its users first
   * (`WriteConflict`: nothing of it was stored) is planned again, `op` and its model calls included,
   * after the users were caught up; the caller sees `WRITE_CONFLICT` only after
   * {@link MAX_WRITE_ATTEMPTS} attempts. The model calls so run again outside any transaction.
   */
  write<T>(op: (change: Change) => Promise<T>, userId: string | null = null): Promise<T> {
    return this.#shared === null ? this.#writeOnce(op, userId) : this.#writeRetrying(op, userId, this.#shared);
  }

  async #writeRetrying<T>(op: (change: Change) => Promise<T>, userId: string | null, shared: SharedQueue): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#writeOnce(op, userId);
      } catch (error) {
        if (!(error instanceof WriteConflict)) throw error;
        if (attempt >= MAX_WRITE_ATTEMPTS) {
          throw new MoomemError(
            "WRITE_CONFLICT",
            `${error.message}; it was planned again on the other writes ${MAX_WRITE_ATTEMPTS} times and refused each time, so nothing was stored: call again`,
            { cause: error },
          );
        }
        // A random pause, growing with the attempts, so processes that collided on a user do not collide again in step.
        // None before the first retry: an add plans on its copy without looking the user's version up first
        // (memory-store.ts), so a first conflict is most often a copy behind an earlier write, not a race.
        if (attempt > 1) await pause(Math.random() * RETRY_PAUSE_MS * 2 ** (attempt - 1));
        // Caught up with nothing of this process's own staged (the writes rolled back with this one retry too).
        await this.exclusive(() => shared.catchUp(error.users));
      }
    }
  }

  /** Whether a write for this user is staged (planned, not yet durable or rolled back). */
  pendingFor(userId: string): boolean {
    return this.#staged.some((s) => s.userId === userId || (s.userId === null && s.records.some((r) => r.userId === userId)));
  }

  #writeOnce<T>(op: (change: Change) => Promise<T>, userId: string | null): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#tail = this.#tail.then(() => this.#step(op, userId, resolve, reject));
    });
  }

  /** Queues work that needs every earlier write durable and nothing else running (compaction, close). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#tail = this.#tail.then(async () => {
        await this.drained();
        try {
          resolve(await fn());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /**
   * Null when nothing is being written; otherwise a promise that settles when
   * everything applied so far is durable (true) or was rolled back (false).
   */
  barrier(): Promise<boolean> | null {
    const last = this.#staged[this.#staged.length - 1];
    return last === undefined ? null : last.settled;
  }

  /** `fn` runs before each write for one user changes anything (an export under way keeps that user's entries: export-stream.ts). */
  onWrite(fn: (userId: string) => void): void {
    this.#beforeWrite = fn;
  }

  /** Resolves once every write queued so far has been applied and is durable or rolled back. */
  async idle(): Promise<void> {
    await this.#tail;
    await this.drained();
  }

  /** Resolves once nothing is staged (everything durable or rolled back). */
  async drained(): Promise<void> {
    for (let last = this.#staged.at(-1); last !== undefined; last = this.#staged.at(-1)) await last.settled;
  }

  async #step<T>(op: (change: Change) => Promise<T>, userId: string | null, resolve: (v: T) => void, reject: (e: unknown) => void): Promise<void> {
    this.#rollbackIfFailed();
    if (userId !== null) this.#beforeWrite(userId);
    const seqs = this.#shared?.seqs ?? null;
    let change: Change;
    let result: T;
    this.#preparing = true;
    for (let need = 1; ;) {
      change = new Change(this.#state, userId);
      let start = 0;
      try {
        // Seqs from the backend (planning is synchronous): a block before planning, a larger one when it ran out.
        if (seqs !== null) {
          await seqs.refill(need);
          start = seqs.position;
        }
        result = await op(change);
        if (seqs !== null && seqs.overran) {
          change.undo();
          need = seqs.needed(start);
          continue;
        }
        // Defence in depth: whatever the operation, no link it made leaves the user or points at nothing.
        change.checkLinks();
      } catch (error) {
        change.undo();
        // A seq past the block can collide with one loaded from another process: plan again with enough seqs.
        if (seqs !== null && seqs.overran) {
          need = seqs.needed(start);
          continue;
        }
        this.#preparing = false;
        reject(error);
        this.#rollbackIfFailed();
        return;
      }
      break;
    }
    this.#preparing = false;
    let settle!: (durable: boolean) => void;
    const settled = new Promise<boolean>((r) => (settle = r));
    this.#staged.push({
      records: change.records(),
      userId,
      change,
      resolve: () => {
        settle(true);
        resolve(result);
      },
      reject: (error) => {
        settle(false);
        reject(error);
      },
      settled,
    });
    this.#rollbackIfFailed();
    void this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      while (this.#failure === null && this.#staged.length > 0) {
        const group = this.#staged.slice();
        const batches: Batch[] = [];
        for (const s of group) {
          // A huge operation (import, forget-all) becomes several consecutive batches so no journal line grows
          // without bound; `continues` chains them so the backend keeps the operation all or nothing.
          for (let i = 0; i < s.records.length; i += MAX_BATCH_ENTRIES) {
            const batch: Batch = { entries: s.records.slice(i, i + MAX_BATCH_ENTRIES) };
            if (i + MAX_BATCH_ENTRIES < s.records.length) batch.continues = true;
            if (s.userId !== null) batch.userId = s.userId;
            batches.push(batch);
          }
        }
        try {
          if (batches.length > 0) await this.#backend.append(batches);
        } catch (error) {
          this.#failure = { error };
          break;
        }
        this.#staged.splice(0, group.length);
        for (const s of group) s.resolve();
        if (batches.length > 0) this.#afterGroup();
      }
    } finally {
      this.#flushing = false;
    }
    if (!this.#preparing) this.#rollbackIfFailed();
  }

  #rollbackIfFailed(): void {
    if (this.#failure === null || this.#flushing) return;
    const { error } = this.#failure;
    this.#failure = null;
    const [staged, kept] = error instanceof WriteConflict ? planned(this.#staged, error.users) : [this.#staged, []];
    this.#staged = kept;
    for (let i = staged.length - 1; i >= 0; i--) staged[i]!.change.undo();
    const wrapped =
      error instanceof MoomemError
        ? error
        : new MoomemError("IO_FAILURE", `writing to ${this.#backend.location} failed: ${describeError(error)}; nothing of this write was kept`, {
            cause: error,
          });
    for (const s of staged) s.reject(wrapped);
    // The writes kept were refused with the group but planned on nothing that was undone: written as planned, in the next group.
    if (kept.length > 0) void this.#flush();
  }
}

/** The users a staged write touches: its one user, or those of its records (an import, a forget of every user). */
function usersOfStaged(s: Staged): string[] {
  return s.userId !== null ? [s.userId] : [...new Set(s.records.map((r) => r.userId))];
}

/**
 * Splits the writes staged when a group was refused for a `WriteConflict` on `users`: those to plan again
 * (each write touching one of those users, and each write staged after one of them that shares a user with
 * it, since it was planned on top of it) and those to keep (planned on state nothing refused touched; nothing
 * of the group was stored, so they are written again as planned). Both keep their order.
 */
function planned(staged: readonly Staged[], users: readonly string[]): [Staged[], Staged[]] {
  const touched = new Set(users);
  const again: Staged[] = [];
  const kept: Staged[] = [];
  for (const s of staged) {
    const mine = usersOfStaged(s);
    if (mine.some((u) => touched.has(u))) {
      for (const u of mine) touched.add(u);
      again.push(s);
    } else {
      kept.push(s);
    }
  }
  return [again, kept];
}
