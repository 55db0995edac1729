// What import checks beyond a line's shape: each entry keeps add's rules, and every link stays inside one user.

import type { EntryRecord } from "../types.ts";
import { invalidArgument } from "../errors.ts";
import { MAX_TIME_MS, isLive } from "../state/entry-state.ts";
import { isPurged, MAX_CONFLICT_IDS } from "../state/lifecycle.ts";
import { PLUGIN_LIMITS } from "../validation/plugin-checks.ts";
import { checkMetadata, checkUserId, isBlankText, METADATA_LIMITS } from "../validation/arguments.ts";

/**
 * Longest slot key an import accepts. Add keeps whatever key the extractor names (the OpenAI adapter's
 * are at most 64 characters); import must not refuse what add stored, so this is generous.
 */
export const MAX_IMPORT_KEY_CHARS = 256;

/**
 * Ids import accepts: what moomem makes (`000000000001-6091`) and what a host's backend or an older
 * store may hold, but nothing that could mislead a terminal, a log or a file name (no spaces, no
 * control or direction characters, no path separators).
 */
const ENTRY_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/** What one entry is checked against. */
export interface EntryRules {
  /** The store's `maxContentChars`: add truncates longer facts; import refuses them rather than change what it copies. */
  maxContentChars: number;
  /** The vector length the header's embedder makes (null without a header). */
  dim: number | null;
  /** The one user a one-user export holds (null: any). */
  userId: string | null;
  /** User ids already found valid in this import (an export repeats a few ids many times). */
  validUsers: Set<string>;
}

/**
 * Throws a plain Error saying what is wrong with one imported entry (the caller names the line): the
 * rules `add` applies to what it stores, and the state's invariants, so that nothing an import
 * brings in could be refused later or make the store fail to open.
 */
export function checkImportedEntry(entry: EntryRecord, rules: EntryRules): void {
  if (!ENTRY_ID.test(entry.id)) throw new Error(`its id ${JSON.stringify(entry.id.slice(0, 80))} is not 1-64 characters of A-Z a-z 0-9 _ . : -`);
  if (!rules.validUsers.has(entry.userId)) {
    checkUserId(entry.userId);
    rules.validUsers.add(entry.userId);
  }
  if (rules.userId !== null && entry.userId !== rules.userId) {
    throw new Error(`it belongs to user ${entry.userId}, but the header says this export holds only user ${rules.userId}'s entries`);
  }
  const tombstone = entry.status === "deleted" && isPurged(entry);
  if (!tombstone && isBlankText(entry.content))
    throw new Error("its content is empty or only white space or invisible characters (only a purged, deleted entry has none)");
  if (entry.content.length > rules.maxContentChars) {
    throw new Error(
      `its content is ${entry.content.length} characters long, over this store's maxContentChars (${rules.maxContentChars}); open the store with a larger maxContentChars to import it`,
    );
  }
  if (entry.key !== undefined && (entry.key.length === 0 || entry.key.length > MAX_IMPORT_KEY_CHARS)) {
    throw new Error(`its key must be 1-${MAX_IMPORT_KEY_CHARS} characters, got ${entry.key.length}`);
  }
  for (const [field, time] of [
    ["created_at", entry.createdAt],
    ["updated_at", entry.updatedAt],
  ] as const) {
    if (Math.abs(time) > MAX_TIME_MS) throw new Error(`its ${field} (${time}) is outside the times a JS Date can hold (±${MAX_TIME_MS} ms around 1970)`);
  }
  if (!plainlyValid(entry.metadata)) checkMetadata(entry.metadata, "its metadata");
  checkLifecycleSize(entry, rules.maxContentChars);
  if (entry.embedding !== null && rules.dim !== null && entry.embedding.length !== rules.dim) {
    throw new Error(`its vector has ${entry.embedding.length} components, but the header's embedder makes ${rules.dim}`);
  }
  const by = entry.supersededBy;
  if (by === entry.id) throw new Error("it is superseded by itself");
  if (isLive(entry.status) && by !== undefined)
    throw new Error(`it is ${entry.status} yet has superseded_by ${JSON.stringify(by)} (only a superseded or deleted entry names what replaced it)`);
  if (entry.status === "superseded" && by === undefined) throw new Error("it is superseded but its superseded_by names no entry");
  // restore() puts a forgotten entry back in the status it had; a superseded one needs its successor.
  if (entry.status === "deleted" && entry.lifecycle.deletedFrom === "superseded" && by === undefined) {
    throw new Error("it was superseded before it was forgotten (lifecycle.deleted_from) but its superseded_by names no entry");
  }
  for (const id of entry.lifecycle.conflict ?? []) {
    if (id === entry.id) throw new Error("its lifecycle.conflict names the entry itself");
  }
}

/**
 * Bounds what an imported entry's lifecycle may hold, as add bounds it: at most {@link MAX_CONFLICT_IDS}
 * conflicting ids, and as JSON no more than a metadata object may be plus one content's length (its
 * `source_span` is cut to `maxContentChars`, like content).
 */
function checkLifecycleSize(entry: EntryRecord, maxContentChars: number): void {
  const { conflict, reextractedInto } = entry.lifecycle;
  if (conflict !== undefined && conflict.length > MAX_CONFLICT_IDS)
    throw new Error(`its lifecycle.conflict lists ${conflict.length} ids; the store keeps at most ${MAX_CONFLICT_IDS}`);
  if (reextractedInto !== undefined && reextractedInto.length > PLUGIN_LIMITS.facts)
    throw new Error(`its lifecycle.reextracted_into lists ${reextractedInto.length} ids; an extraction yields at most ${PLUGIN_LIMITS.facts}`);
  const limit = METADATA_LIMITS.chars + 6 * maxContentChars;
  const chars = JSON.stringify(entry.lifecycle).length;
  if (chars > limit) throw new Error(`its lifecycle is ${chars} characters as JSON; the limit is ${limit}`);
}

/**
 * True for metadata that add's `checkMetadata` accepts beyond doubt: flat, a few keys, short
 * strings, finite numbers (most lines: `{"extractor":"raw"}`). It spares those lines that check's
 * deep copy (about a sixth of an import's time); any other metadata goes through `checkMetadata`
 * itself, so add's rules stay defined in one place.
 */
function plainlyValid(metadata: object): boolean {
  let keys = 0;
  let chars = 0;
  for (const key in metadata) {
    // A key that is also a prototype's name goes the long way, whatever add decides about such keys.
    if (++keys > 64 || key === "__proto__" || key === "constructor" || key === "prototype") return false;
    const value: unknown = (metadata as Record<string, unknown>)[key];
    if (typeof value === "string") chars += value.length;
    else if (typeof value === "number" ? !Number.isFinite(value) : typeof value !== "boolean" && value !== null) return false;
    if ((chars += key.length) > 4096) return false;
  }
  return true;
}

/** Entries read from an import, with the line each came from. */
export interface ImportedEntries {
  entries: readonly EntryRecord[];
  /** `lines[i]` is the line number of `entries[i]`. */
  lines: readonly number[];
}

/** The store's entry with this id (any user's), as far as an import's checks need it; undefined when the store has none. */
export type StoredLookup = (id: string) => Pick<EntryRecord, "userId" | "content" | "status"> | undefined;

/** What an import will do to the store. */
export interface ImportPlan {
  /** Entries new to the store, in file order. */
  fresh: EntryRecord[];
  /** Entries already in the store as they are (importing an export twice skips them). */
  existing: number;
  /** Users the fresh entries belong to. */
  users: number;
}

/**
 * Decides what to insert and checks the import against the store; throws INVALID_ARGUMENT (naming the
 * line) when an id is already another entry's, or when a link (`superseded_by`, `lifecycle.conflict`)
 * names an entry of another user, or one that is in neither the import nor the store. A partial import
 * keeps such a dangling link (its target may come with the rest of the export): nothing follows it
 * until an entry of the same user has that id, as history and restore follow links only within a
 * user. Pure: the store runs it once before computing vectors and again inside the write.
 */
export function planImport(imported: ImportedEntries, stored: StoredLookup, partial: boolean): ImportPlan {
  const { entries, lines } = imported;
  // Who owns each imported id, made on the first link met (an import of live entries has none).
  let owners: Map<string, string> | null = null;
  const ownerInImport = (id: string): string | undefined => {
    if (owners === null) {
      owners = new Map();
      for (const entry of entries) owners.set(entry.id, entry.userId);
    }
    return owners.get(id);
  };
  const fresh: EntryRecord[] = [];
  const users = new Set<string>();
  let existing = 0;
  entries.forEach((entry, i) => {
    const found = stored(entry.id);
    if (found === undefined) {
      fresh.push(entry);
      users.add(entry.userId);
      if (entry.supersededBy !== undefined) checkLink(entry, "superseded_by", entry.supersededBy, lines[i]!, ownerInImport, stored, partial);
      for (const id of entry.lifecycle.conflict ?? []) checkLink(entry, "lifecycle.conflict", id, lines[i]!, ownerInImport, stored, partial);
      return;
    }
    if (found.userId === entry.userId && found.content === entry.content && found.status === entry.status) {
      existing++;
      return;
    }
    throw invalidArgument(`import: line ${lines[i]}: entry ${entry.id} already exists in this store with other content, status or user; nothing was imported`);
  });
  return { fresh, existing, users: users.size };
}

function checkLink(
  entry: EntryRecord,
  field: string,
  id: string,
  line: number,
  ownerInImport: (id: string) => string | undefined,
  stored: StoredLookup,
  partial: boolean,
): void {
  const owner = ownerInImport(id) ?? stored(id)?.userId;
  if (owner === undefined) {
    if (partial) return;
    throw invalidArgument(
      `import: line ${line}: entry ${entry.id} names ${id} in ${field}, but no entry has that id in this import or in the store (was the export cut short? { partial: true } accepts that); nothing was imported`,
    );
  }
  if (owner !== entry.userId) {
    throw invalidArgument(
      `import: line ${line}: entry ${entry.id} of user ${entry.userId} names ${id} in ${field}, which is another user's entry; links never cross users, nothing was imported`,
    );
  }
}
