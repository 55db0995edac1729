// `history`: the supersede chain through one entry, what it replaced and what replaced it.

import type { EntryRecord } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { describe } from "../validation/arguments.ts";
import type { UserEntries } from "../state/user-entries.ts";

/**
 * The user's entries linked to `id` by `supersededBy` (every entry it replaced, transitively, and the
 * chain of entries that replaced it), oldest first. Links are followed only within the user; a cycle,
 * which only a damaged or crafted file can hold, is walked once. Throws `INVALID_ARGUMENT` for an id
 * that is not the user's.
 */
export function historyOf(user: UserEntries, id: string): EntryRecord[] {
  const start = user.get(id);
  if (start === undefined) throw invalidArgument(`history: user ${user.userId} has no entry ${describe(id, 100)}`);
  const replacedBy = new Map<string, EntryRecord[]>();
  for (const r of user.entries) {
    if (r.supersededBy === undefined) continue;
    const list = replacedBy.get(r.supersededBy) ?? [];
    list.push(r);
    replacedBy.set(r.supersededBy, list);
  }
  const chain = new Map<string, EntryRecord>();
  const back = [start];
  while (back.length > 0) {
    const r = back.pop()!;
    if (chain.has(r.id)) continue;
    chain.set(r.id, r);
    back.push(...(replacedBy.get(r.id) ?? []));
  }
  for (let r = start; r.supersededBy !== undefined;) {
    const next = user.successor(r);
    if (next === undefined || chain.has(next.id)) break;
    chain.set(next.id, next);
    r = next;
  }
  return [...chain.values()].sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
}
