// The inspector's JSON API, written against MemoryStore's public methods only, so it serves any backend.

import type { MemoryStore } from "../index.ts";
import type { MemoryEntry } from "../types.ts";
import type { UserSummary } from "../index.ts";
import { checkUserId } from "../validation/arguments.ts";
import type {
  EntriesResponse,
  EntryResponse,
  MetaResponse,
  RecallResponse,
  StatsResponse,
  UsersResponse,
  VersionResponse,
  WriteResponse,
} from "./api-types.ts";
import { HttpError } from "./http-error.ts";
import { parseEntryQuery, selectEntries } from "./entry-query.ts";
import { parseUserQuery, selectUsers } from "./user-query.ts";
import { parseRecallQuery } from "./recall-query.ts";
import { QueryParams } from "./query-params.ts";
import type { StoreHolder } from "./store-holder.ts";

/** Longest entry id the API looks up (ids moomem makes are 17 characters; imported ones may be longer). */
const MAX_ID_CHARS = 200;

/** One API call after routing: the path below `api/`, the query string, and the body when it is a POST. */
export interface ApiRequest {
  method: string;
  segments: readonly string[];
  search: URLSearchParams;
  /** Reads and parses the JSON body (POST only); rejects with a 4xx HttpError. */
  body: () => Promise<Record<string, unknown>>;
}

/** A user's entries at one generation of the store: paging and filtering reuse them instead of listing 100,000 entries again. */
interface UserEntries {
  generation: number;
  userId: string;
  entries: MemoryEntry[];
  byId: Map<string, MemoryEntry>;
}

export class InspectorApi {
  readonly #holder: StoreHolder;
  readonly #version: string;
  #users: { generation: number; users: UserSummary[] } | null = null;
  #entries: UserEntries | null = null;

  constructor(holder: StoreHolder, version: string) {
    this.#holder = holder;
    this.#version = version;
  }

  /** Answers one API call with the JSON to send (status 200); throws an HttpError otherwise. */
  async handle(request: ApiRequest): Promise<unknown> {
    const [first, user, second, id, action, ...extra] = request.segments;
    if (first === "meta" && user === undefined) return this.#get(request, () => this.#meta(request));
    if (first === "version" && user === undefined) return this.#get(request, () => this.#versionOf(request));
    if (first === "stats" && user === undefined) return this.#get(request, () => this.#stats(request));
    if (first === "users") {
      if (user === undefined) return this.#get(request, () => this.#usersPage(request));
      if (second === "entries" && id === undefined) return this.#get(request, () => this.#entriesPage(user, request));
      if (second === "recall" && id === undefined) return this.#get(request, () => this.#recall(user, request));
      if (second === "entries" && id !== undefined && action === undefined) return this.#get(request, () => this.#entry(user, id, request));
      if (second === "entries" && id !== undefined && extra.length === 0 && (action === "forget" || action === "restore")) {
        if (request.method !== "POST") throw methodNotAllowed(request.method, "POST");
        return action === "forget" ? this.#forget(user, id, request) : this.#restore(user, id, request);
      }
    }
    throw new HttpError(404, "NOT_FOUND", `no API endpoint at api/${request.segments.join("/")}`);
  }

  #get<T>(request: ApiRequest, run: () => Promise<T>): Promise<T> {
    if (request.method !== "GET" && request.method !== "HEAD") throw methodNotAllowed(request.method, "GET, HEAD");
    return run();
  }

  async #meta(request: ApiRequest): Promise<MetaResponse> {
    noParams(request, "meta");
    return this.#holder.use(async (store) => ({
      version: this.#version,
      dir: this.#holder.dir,
      writable: this.#holder.writable,
      embedder: store.embedderIdentity,
      follow: this.#holder.followState(),
    }));
  }

  async #versionOf(request: ApiRequest): Promise<VersionResponse> {
    noParams(request, "version");
    await this.#holder.refreshBriefly();
    return { follow: this.#holder.followState() };
  }

  async #stats(request: ApiRequest): Promise<StatsResponse> {
    noParams(request, "stats");
    return this.#holder.use(async (store) => ({
      dir: this.#holder.dir,
      writable: this.#holder.writable,
      stats: await store.stats(),
      embedder: store.embedderIdentity,
      follow: this.#holder.followState(),
    }));
  }

  async #usersPage(request: ApiRequest): Promise<UsersResponse> {
    const query = parseUserQuery(request.search);
    return this.#holder.use(async (store, generation) => selectUsers(await this.#usersOf(store, generation), query));
  }

  async #entriesPage(userId: string, request: ApiRequest): Promise<EntriesResponse> {
    checkUserId(userId);
    const query = parseEntryQuery(request.search);
    return this.#holder.use(async (store, generation) => {
      const { entries: all } = await this.#entriesOf(store, generation, userId);
      // A metadata filter is the store's own rule (list's), asked of the store; the cached list serves the rest.
      const entries = query.metadata === undefined ? all : await store.list(userId, { metadata: query.metadata });
      const { total, rows } = selectEntries(entries, query);
      return { userId, total, offset: query.offset, limit: query.limit, entries: rows };
    });
  }

  async #entry(userId: string, id: string, request: ApiRequest): Promise<EntryResponse> {
    checkUserId(userId);
    checkId(id);
    noParams(request, "entry");
    return this.#holder.use(async (store, generation) => {
      await this.#findEntry(store, generation, userId, id);
      const history = await store.history(userId, id);
      return { entry: history.find((e) => e.id === id)!, history };
    });
  }

  async #recall(userId: string, request: ApiRequest): Promise<RecallResponse> {
    checkUserId(userId);
    const { query, mode, topK, options } = parseRecallQuery(request.search);
    return this.#holder.use(async (store, generation) => {
      await this.#requireUser(store, generation, userId);
      return { userId, query, mode, topK, hits: await store.recall(userId, query, options) };
    });
  }

  async #forget(userId: string, id: string, request: ApiRequest): Promise<WriteResponse> {
    checkUserId(userId);
    checkId(id);
    const body = await request.body();
    this.#checkWritable();
    knownKeys(body, ["purge"], "forget");
    const purge = body["purge"] ?? false;
    if (typeof purge !== "boolean") throw new HttpError(400, "INVALID_ARGUMENT", `forget: "purge" must be true or false, got ${JSON.stringify(purge)}`);
    return this.#holder.use(async (store, generation) => {
      const before = await this.#findEntry(store, generation, userId, id);
      if (before.status === "deleted" && (!purge || before.lifecycle?.purgedAt !== undefined)) {
        throw new HttpError(409, "CONFLICT", `entry ${id} is already ${purge ? "purged" : "forgotten"}; nothing was changed`);
      }
      const affected = await store.forget(userId, { id }, purge ? { purge: true } : undefined);
      this.#holder.markChanged();
      return { affected, entry: await entryNow(store, userId, id) };
    });
  }

  async #restore(userId: string, id: string, request: ApiRequest): Promise<WriteResponse> {
    checkUserId(userId);
    checkId(id);
    const body = await request.body();
    this.#checkWritable();
    knownKeys(body, [], "restore");
    return this.#holder.use(async (store, generation) => {
      const before = await this.#findEntry(store, generation, userId, id);
      if (before.lifecycle?.purgedAt !== undefined) throw new HttpError(409, "CONFLICT", `entry ${id} was purged: its content is gone and cannot be restored`);
      if (before.status !== "deleted" && before.status !== "superseded") {
        throw new HttpError(409, "CONFLICT", `entry ${id} is ${before.status}; only deleted or superseded entries can be restored`);
      }
      const entry = await store.restore(userId, id);
      this.#holder.markChanged();
      return { affected: 1, entry };
    });
  }

  #checkWritable(): void {
    if (!this.#holder.writable) {
      throw new HttpError(
        403,
        "READ_ONLY",
        "moomem ui was started read-only (so an agent can keep writing the store); restart it with --write to forget, restore or purge",
      );
    }
  }

  async #usersOf(store: MemoryStore, generation: number): Promise<UserSummary[]> {
    if (this.#users?.generation !== generation) this.#users = { generation, users: await store.users() };
    return this.#users.users;
  }

  async #requireUser(store: MemoryStore, generation: number, userId: string): Promise<void> {
    const users = await this.#usersOf(store, generation);
    if (!users.some((u) => u.userId === userId)) throw new HttpError(404, "NOT_FOUND", `this store has no user ${JSON.stringify(userId)}`);
  }

  /** The user's entries, listed once per store generation (one user at a time is kept). */
  async #entriesOf(store: MemoryStore, generation: number, userId: string): Promise<UserEntries> {
    await this.#requireUser(store, generation, userId);
    const cached = this.#entries;
    if (cached !== null && cached.generation === generation && cached.userId === userId) return cached;
    const entries = await store.list(userId);
    const fresh: UserEntries = { generation, userId, entries, byId: new Map(entries.map((e) => [e.id, e])) };
    this.#entries = fresh;
    return fresh;
  }

  async #findEntry(store: MemoryStore, generation: number, userId: string, id: string): Promise<MemoryEntry> {
    const entry = (await this.#entriesOf(store, generation, userId)).byId.get(id);
    if (entry === undefined) throw new HttpError(404, "NOT_FOUND", `user ${JSON.stringify(userId)} has no entry ${JSON.stringify(id)}`);
    return entry;
  }
}

/** The entry as the store holds it right after a write. */
async function entryNow(store: MemoryStore, userId: string, id: string): Promise<MemoryEntry> {
  return (await store.history(userId, id)).find((e) => e.id === id)!;
}

function checkId(id: string): void {
  if (id.length === 0 || id.length > MAX_ID_CHARS || /[\p{Cc}\p{Cf}\s]/u.test(id)) {
    const shown = id.length > 40 ? `${JSON.stringify(id.slice(0, 40))}… (${id.length} characters)` : JSON.stringify(id);
    throw new HttpError(400, "INVALID_ARGUMENT", `${shown} is not an entry id (1-${MAX_ID_CHARS} characters, no spaces or control characters)`);
  }
}

function noParams(request: ApiRequest, where: string): void {
  new QueryParams(request.search, [], where);
}

function knownKeys(body: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      const takes = allowed.length === 0 ? "it takes an empty object {}" : `it takes ${allowed.map((a) => `"${a}"`).join(", ")}`;
      throw new HttpError(400, "INVALID_ARGUMENT", `${where}: unknown field ${JSON.stringify(key.slice(0, 80))} in the body; ${takes}`);
    }
  }
}

function methodNotAllowed(method: string, allow: string): HttpError {
  return new HttpError(405, "METHOD_NOT_ALLOWED", `${method} is not allowed here; use ${allow}`, { Allow: allow });
}
