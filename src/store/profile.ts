// A user's current memories as a structured profile: the value of each key slot, the rest listed by kind (pure, no LLM).

import { MoomemError, invalidArgument } from "../errors.ts";
import type { EntryKind, EntryStatus, MemoryEntry } from "../types.ts";
import { ENTRY_KINDS, ENTRY_STATUSES } from "../types.ts";
import { checkList, checkUserId, describe, readGuarded } from "../validation/arguments.ts";

/** One live memory as a profile lists it. */
export interface ProfileFact {
  /** The entry's id (for `forget`, `history`, `restore`). */
  id: string;
  content: string;
  kind: EntryKind;
  /** When the user said it (the entry's `createdAt`, i.e. `observedAt` for imported history), ms since epoch. */
  observedAt: number;
}

/** The current value of one key slot (e.g. `home_city`). */
export interface ProfileSlot {
  /** The content of the entry that holds the slot, e.g. "User lives in Shenzhen". */
  value: string;
  /** That entry's id. */
  id: string;
  kind: EntryKind;
  /** When that value was observed, ms since epoch. */
  observedAt: number;
  /**
   * Other live entries with the same key, newest first — present only when a judge let two values
   * coexist (the default judge replaces instead). Worth asking the user about.
   */
  conflicting?: ProfileFact[];
}

/** What moomem currently knows about one user (see {@link buildProfile}). */
export interface UserProfile {
  /** Whose profile this is; null only for a profile built from no entries without naming the user. */
  userId: string | null;
  /** Key → the slot's current value, keys in sorted order. */
  slots: Record<string, ProfileSlot>;
  /** Facts without a key, newest first. */
  facts: ProfileFact[];
  /** Preferences without a key, newest first. */
  preferences: ProfileFact[];
  /** Events without a key, newest first. */
  events: ProfileFact[];
  /** Raw text nobody extracted facts from (the `RawExtractor`, or a degraded add), newest first. */
  unstructured: ProfileFact[];
}

/**
 * Groups one user's live memories into a profile — a deterministic "what we know about this user" for a
 * system prompt or a settings page, with no model call.
 *
 * - Only live entries count (status `active` or `unstructured`); superseded and deleted ones are skipped,
 *   so the profile follows supersede, forget and restore. Pass `list(userId)` as it is.
 * - Entries with a `key` fill `slots[key]`: the newest by observed time (then by write order) is the
 *   value; any other live entry with that key is listed under `conflicting`.
 * - Entries without a key are listed by kind, newest first.
 * - The same entries give the same profile whatever their order.
 *
 * Throws `INVALID_ARGUMENT` when the entries belong to more than one user (or not to `userId`): a profile
 * never mixes users.
 *
 * @example
 * ```ts
 * const profile = buildProfile(await mem.list("user-42"), "user-42");
 * // {
 * //   userId: "user-42",
 * //   slots: { allergy_peanuts: { value: "User is allergic to peanuts", id: "…", kind: "fact", observedAt: … },
 * //            home_city: { value: "User has moved to Shenzhen", id: "…", kind: "fact", observedAt: … } },
 * //   facts: [], preferences: [{ content: "User prefers short answers", … }], events: [], unstructured: []
 * // }
 * const system = Object.entries(profile.slots).map(([key, slot]) => `${key}: ${slot.value}`).join("\n");
 * ```
 */
export function buildProfile(entries: readonly MemoryEntry[], userId?: string): UserProfile {
  let owner: string | null = userId === undefined ? null : checkUserId(userId);
  const checked = readGuarded("buildProfile: entries", () =>
    Array.from(checkList(entries, "buildProfile: entries", "memory entries, e.g. from list"), checkEntry),
  );
  const live: MemoryEntry[] = [];
  checked.forEach((e, i) => {
    if (owner === null) owner = e.userId;
    else if (e.userId !== owner) {
      throw invalidArgument(`buildProfile: entries[${i}] belongs to user ${describe(e.userId, 70)}, not ${describe(owner, 70)}; build one profile per user`);
    }
    if (e.status === "active" || e.status === "unstructured") live.push(e);
  });
  live.sort(newestFirst);

  const byKey = new Map<string, MemoryEntry[]>();
  const lists: Record<EntryKind, ProfileFact[]> = { fact: [], preference: [], event: [], unstructured: [] };
  for (const e of live) {
    if (e.key === undefined) {
      lists[e.kind].push(toFact(e));
    } else {
      const group = byKey.get(e.key);
      if (group === undefined) byKey.set(e.key, [e]);
      else group.push(e);
    }
  }
  const slots = [...byKey.keys()].sort(compareStrings).map((key): [string, ProfileSlot] => {
    const [current, ...others] = byKey.get(key)!;
    const slot: ProfileSlot = { value: current!.content, id: current!.id, kind: current!.kind, observedAt: current!.createdAt };
    if (others.length > 0) slot.conflicting = others.map(toFact);
    return [key, slot];
  });
  return {
    userId: owner,
    // fromEntries defines own properties, so a key like "__proto__" stays an ordinary slot.
    slots: Object.fromEntries(slots),
    facts: lists.fact,
    preferences: lists.preference,
    events: lists.event,
    unstructured: lists.unstructured,
  };
}

/** A copy of the fields a profile reads, each read once and checked (kind and status among the known ones). */
function checkEntry(entry: unknown, i: number): MemoryEntry {
  const bad = (): MoomemError =>
    invalidArgument(`buildProfile: entries[${i}] is not a memory entry (needs id, userId, content, kind, status, createdAt, seq), got ${describe(entry)}`);
  if (typeof entry !== "object" || entry === null) throw bad();
  const { id, userId, content, kind, status, createdAt, seq, key, updatedAt, metadata } = entry as Record<string, unknown>;
  const ok =
    typeof id === "string" &&
    typeof userId === "string" &&
    typeof content === "string" &&
    ENTRY_KINDS.includes(kind as EntryKind) &&
    ENTRY_STATUSES.includes(status as EntryStatus) &&
    typeof createdAt === "number" &&
    typeof seq === "number" &&
    (key === undefined || typeof key === "string");
  if (!ok) throw bad();
  const e: MemoryEntry = {
    id,
    userId,
    content,
    kind: kind as EntryKind,
    status: status as EntryStatus,
    createdAt,
    seq,
    updatedAt: typeof updatedAt === "number" ? updatedAt : createdAt,
    metadata: (metadata ?? {}) as MemoryEntry["metadata"],
  };
  if (key !== undefined) e.key = key;
  return e;
}

/** Newest observed first; entries observed at the same time: the later write first. */
function newestFirst(a: MemoryEntry, b: MemoryEntry): number {
  return b.createdAt - a.createdAt || b.seq - a.seq;
}

function toFact(e: MemoryEntry): ProfileFact {
  return { id: e.id, content: e.content, kind: e.kind, observedAt: e.createdAt };
}

/** Code-unit order, the same on every runtime (localeCompare is not). */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
