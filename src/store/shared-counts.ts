// users() and stats() of a writable store several processes write (PostgreSQL): counted by the backend at call time.

import type { UserSummary } from "../types.ts";
import { MoomemError } from "../errors.ts";
import type { PersistenceBackend, SharedCounts, StoreCounts } from "../persistence/backend.ts";
import { callBackend } from "../validation/plugin-checks.ts";
import type { WriteQueue } from "./write-queue.ts";

const COUNTS = ["total", "active", "superseded", "deleted", "unstructured"] as const;

/**
 * What other processes wrote is in the database, not in this process's copy (the catalog read at open and
 * the users it served since): so `users()` and `stats()` ask the backend (docs/postgres.md, "Consistency").
 * Each call first waits until this process's writes applied so far are durable, then reads one snapshot:
 * it sees every write acknowledged (to any process) before it started, as the catch-up before a call does.
 */
export class StoreWideCounts {
  readonly #backend: PersistenceBackend & SharedCounts;
  readonly #queue: WriteQueue;

  constructor(backend: PersistenceBackend & SharedCounts, queue: WriteQueue) {
    this.#backend = backend;
    this.#queue = queue;
  }

  async users(): Promise<UserSummary[]> {
    await this.#queue.barrier();
    const users = await callBackend(this.#backend.location, "counting the users", () => this.#backend.countUsers());
    if (!Array.isArray(users)) throw this.#malformed("countUsers", "not an array");
    for (const user of users) {
      if (typeof user !== "object" || user === null || typeof user.userId !== "string") throw this.#malformed("countUsers", "a user without a userId");
      for (const key of [...COUNTS, "lastWriteAt"] as const) if (!isCount(user[key])) throw this.#malformed("countUsers", `${key} of user ${user.userId}`);
    }
    return users;
  }

  async counts(): Promise<StoreCounts> {
    await this.#queue.barrier();
    const counts = await callBackend(this.#backend.location, "counting the entries", () => this.#backend.countEntries());
    if (typeof counts !== "object" || counts === null) throw this.#malformed("countEntries", "not an object");
    for (const key of [...COUNTS, "users"] as const) if (!isCount(counts[key])) throw this.#malformed("countEntries", key);
    if (counts.lastWriteAt !== null && !isCount(counts.lastWriteAt)) throw this.#malformed("countEntries", "lastWriteAt");
    return counts;
  }

  #malformed(method: string, what: string): MoomemError {
    return new MoomemError("IO_FAILURE", `${method}() of the store at ${this.#backend.location} returned a malformed answer (${what}); nothing was changed`);
  }
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
