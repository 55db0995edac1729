// `forget`: one entry or all of a user's become deleted (undo with restore), or purged (content erased).

import type { EntryRecord } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { checkKnownKeys, checkOptions, describe } from "../validation/arguments.ts";
import type { Change } from "../state/entry-state.ts";
import { isPurged } from "../state/lifecycle.ts";
import type { UserEntries } from "../state/user-entries.ts";

/** What one forget asks for, checked. */
export interface ForgetRequest {
  /** One entry by id, or null for all of the user's entries. */
  id: string | null;
  purge: boolean;
}

/** Reads `forget`'s target and options. */
export function readForgetArgs(target: unknown, options: unknown): ForgetRequest {
  const t = checkOptions(target, "forget target");
  const byId = t["id"];
  const all = t["all"];
  if ((byId === undefined) === (all === undefined)) throw invalidArgument('forget: pass exactly one of { id: "<entry id>" } or { all: true }');
  if (byId !== undefined && (typeof byId !== "string" || byId.length === 0))
    throw invalidArgument(`forget: id must be a non-empty string, got ${describe(byId)}`);
  if (all !== undefined && all !== true) throw invalidArgument(`forget: all must be true, got ${describe(all)}`);
  const o = checkOptions(options, "forget options");
  checkKnownKeys(o, ["purge"], "forget");
  const purge = o["purge"] ?? false;
  if (typeof purge !== "boolean") throw invalidArgument(`forget: purge must be true or false, got ${describe(purge)}`);
  return { id: typeof byId === "string" ? byId : null, purge };
}

/**
 * Marks the targets deleted through `change` (remembering the status each had, for restore) and, with
 * `purge`, erases their content, vector and key, leaving a tombstone. An id that is not the user's
 * matches nothing. Returns how many entries changed: an entry already deleted counts only when a purge
 * erases it now.
 */
export function forgetEntries(change: Change, user: UserEntries, request: ForgetRequest, now: number): number {
  const targets: EntryRecord[] = [];
  if (request.id !== null) {
    const record = user.get(request.id);
    if (record !== undefined) targets.push(record);
  } else {
    targets.push(...(user.shard()?.entries ?? []));
  }
  let affected = 0;
  for (const record of targets) {
    const alreadyGone = record.status === "deleted" && (!request.purge || isPurged(record));
    if (alreadyGone) continue;
    const lifecycle = record.status === "deleted" ? record.lifecycle : { ...record.lifecycle, deletedFrom: record.status, deletedAt: now };
    const next: EntryRecord = { ...record, status: "deleted", updatedAt: now, lifecycle };
    if (request.purge) {
      // Only a tombstone is left: no content, vector, key or metadata, and nothing of its history.
      next.content = "";
      next.embedding = null;
      delete next.key;
      next.metadata = {};
      next.lifecycle = { purgedAt: now };
    }
    change.put(next);
    affected++;
  }
  return affected;
}
