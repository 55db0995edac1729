// The JSON shapes the inspector's HTTP API answers with, shared by the server and the page (types only).

import type { EmbedderIdentity, UserSummary } from "../index.ts";
import type { EntryKind, EntryStatus, MemoryEntry, RecallHit, StoreStats } from "../types.ts";

/** Every failed request: a status code and this body. */
export interface ApiError {
  error: {
    /** A MoomemError code, or one of the HTTP-level codes (`NOT_FOUND`, `FORBIDDEN`, `METHOD_NOT_ALLOWED`, …). */
    code: string;
    message: string;
  };
}

/** How the inspector keeps up with the store. */
export interface FollowState {
  /** `follow`: read-only, re-reads what another process writes; `write`: holds the writer lock (started with --write). */
  mode: "follow" | "write";
  /** Bumped each time the store's content may have changed; the page re-renders when it moves. */
  generation: number;
  /** ms since epoch of the last time the inspector looked for new writes. */
  checkedAt: number;
  /** ms since epoch of the last time new writes were read in, or null. */
  changedAt: number | null;
  /** Why the last attempt to read new writes failed (the page keeps showing the older state), or null. */
  lastError: string | null;
}

/** `GET api/meta`: what the page needs on load. */
export interface MetaResponse {
  version: string;
  /** The store folder as given to `moomem ui --dir`. */
  dir: string;
  writable: boolean;
  embedder: EmbedderIdentity;
  follow: FollowState;
}

/** A page of rows. */
export interface Page {
  total: number;
  offset: number;
  limit: number;
}

/** `GET api/users`. */
export interface UsersResponse extends Page {
  users: UserSummary[];
}

/** One row of a user's memory table: the entry without metadata, content cut to a preview. */
export interface EntryRow {
  id: string;
  content: string;
  /** True when `content` was cut for the table. */
  truncated: boolean;
  kind: EntryKind;
  key?: string;
  status: EntryStatus;
  createdAt: number;
  updatedAt: number;
  seq: number;
  supersededBy?: string;
  /** How many metadata keys the entry has. */
  metadataKeys: number;
}

/** `GET api/users/<user>/entries`. */
export interface EntriesResponse extends Page {
  userId: string;
  entries: EntryRow[];
}

/** `GET api/users/<user>/entries/<id>`: the entry and its supersede chain, oldest first. */
export interface EntryResponse {
  entry: MemoryEntry;
  history: MemoryEntry[];
}

/** `GET api/users/<user>/recall`. */
export interface RecallResponse {
  userId: string;
  query: string;
  mode: string;
  topK: number;
  hits: RecallHit[];
}

/** `GET api/stats`. */
export interface StatsResponse {
  dir: string;
  writable: boolean;
  stats: StoreStats;
  embedder: EmbedderIdentity;
  follow: FollowState;
}

/** `POST api/users/<user>/entries/<id>/forget` and `…/restore`. */
export interface WriteResponse {
  /** Entries affected (forget), or 1 (restore). */
  affected: number;
  /** The entry after the change. */
  entry: MemoryEntry;
}

/** `GET api/version`: cheap poll target. */
export interface VersionResponse {
  follow: FollowState;
}

export type { UserSummary };
