// The browser backend: entries and store metadata in IndexedDB, one transaction per write group.

import type { BackendStats, Batch, EmbedderIdentity, LoadedState, PersistenceBackend, RefreshedState, SnapshotSource } from "../backend.ts";
import type { EntryRecord } from "../../types.ts";
import { MoomemError, describeError, invalidArgument } from "../../errors.ts";
import { entryFromJson, entryToJson, type EntryJson } from "../record-codec.ts";

/** Every moomem database name starts with this, so they are easy to find in devtools. */
export const INDEXEDDB_NAME_PREFIX = "moomem:";

/**
 * IndexedDB schema version (object stores and their key paths). Bumped only
 * when the stores change; a database with a higher version was written by a
 * newer moomem and is refused.
 */
export const INDEXEDDB_SCHEMA_VERSION = 1;

/**
 * Version of the records inside the stores. Entries are record-codec objects
 * with dense vectors. v3: the objects of entry format 4 (the store's
 * bookkeeping in `lifecycle`); v2: those of a v2 snapshot line (bookkeeping in
 * `metadata`). A database of v2 is read as it is (each record without a
 * `lifecycle` is read the v2 way) and becomes v3 with its next write: records
 * are rewritten one by one as they change, and both kinds read the same.
 */
export const INDEXEDDB_FORMAT_VERSION = 3;

/** The oldest record version still read. */
const OLDEST_INDEXEDDB_FORMAT = 2;

const ENTRIES = "entries";
const META = "meta";
const META_KEY = "store";

/** The one record of the `meta` object store. */
interface MetaRecord {
  format: number;
  embedder: EmbedderIdentity | null;
  lastWriteAt: number | null;
}

/** Options of {@link IndexedDbBackend}. */
export interface IndexedDbBackendOptions {
  /** Open without the writer lock and never write (inspect a store another tab is using). */
  readOnly?: boolean;
  /** The IndexedDB to use; default the global `indexedDB`, looked up in `load()`. */
  indexedDB?: IDBFactory;
  /**
   * Transaction durability. `"strict"` (default) resolves a write only once the
   * browser has flushed it to disk; `"relaxed"` resolves earlier and may lose
   * the last writes on power loss (never on a closed tab).
   */
  durability?: "strict" | "relaxed";
}

// Same-process writers per factory, for runtimes without Web Locks (fake-indexeddb on Node/Bun/Deno).
const openWriters = new WeakMap<IDBFactory, Set<string>>();

/**
 * Keeps a store in the browser's IndexedDB, in a database named
 * `moomem:<name>` with two object stores: `entries` (the latest version of
 * every entry, keyed by id, as the record codec's JSON object) and `meta`
 * (format version, embedder identity, last write time).
 *
 * Each `append` group is one readwrite transaction, so a tab closed or crashed
 * mid-write leaves either the whole group or none of it: there is no journal
 * to recover and `compact` only records the embedder. One writer per database:
 * a second writer in the same origin (another tab, or a second open here)
 * gets `STORE_LOCKED` (Web Locks where the runtime has them).
 *
 * The global `indexedDB` is only touched in `load()`, so importing this module
 * is safe anywhere; where no IndexedDB exists `load()` throws
 * `BACKEND_UNSUPPORTED`.
 *
 * @example
 * ```ts
 * const mem = await MemoryStore.open("notes", { backend: new IndexedDbBackend("notes") });
 * ```
 */
export class IndexedDbBackend implements PersistenceBackend {
  readonly location: string;
  readonly #name: string;
  readonly #dbName: string;
  readonly #readOnly: boolean;
  readonly #factoryOption: IDBFactory | undefined;
  readonly #durability: "strict" | "relaxed";
  #factory: IDBFactory | null = null;
  #db: IDBDatabase | null = null;
  #state: "new" | "loading" | "open" | "closed" = "new";
  #meta: MetaRecord = { format: INDEXEDDB_FORMAT_VERSION, embedder: null, lastWriteAt: null };
  /** Estimated serialized size of each stored entry, by id (see `stats`). */
  #sizes = new Map<string, number>();
  #entryBytes = 0;
  /** An append stored entries since the last compaction (see `hasUncompacted`). */
  #written = false;
  #releaseWebLock: (() => Promise<void>) | null = null;
  #holdsProcessLock = false;

  constructor(name: string, options: IndexedDbBackendOptions = {}) {
    if (typeof name !== "string" || name.length === 0) {
      throw invalidArgument(`IndexedDbBackend needs a non-empty database name, got ${JSON.stringify(name) ?? String(name)}; pass e.g. "notes"`);
    }
    if (typeof options !== "object" || options === null) {
      throw invalidArgument(`IndexedDbBackend options must be an object, got ${String(options)}`);
    }
    const durability = options.durability ?? "strict";
    if (durability !== "strict" && durability !== "relaxed") {
      throw invalidArgument(`IndexedDbBackend durability must be "strict" or "relaxed", got ${JSON.stringify(durability)}`);
    }
    this.#name = name;
    this.#dbName = INDEXEDDB_NAME_PREFIX + name;
    this.location = `IndexedDB "${this.#dbName}"`;
    this.#readOnly = options.readOnly === true;
    this.#factoryOption = options.indexedDB;
    this.#durability = durability;
  }

  async load(): Promise<LoadedState> {
    if (this.#state !== "new") {
      throw new MoomemError(
        "STORE_CLOSED",
        `${this.location}: load() was already called on this backend; create a new IndexedDbBackend to open the store again`,
      );
    }
    this.#state = "loading";
    try {
      const factory = this.#factoryOption ?? findIndexedDb(this.#name);
      this.#factory = factory;
      if (!this.#readOnly) await this.#lock(factory);
      const db = await this.#openDatabase(factory);
      if (db === null) {
        // Read-only open of a database that does not exist: nothing is created, and a misspelt name is not shown as an empty store.
        throw new MoomemError(
          "STORE_NOT_FOUND",
          `there is no store in ${this.location} (no such database in this origin); check the name. A read-only open never creates a store: the first writable open does.`,
        );
      }
      this.#db = db;
      const state = await this.#readAll(db);
      this.#state = "open";
      return state;
    } catch (error) {
      this.#state = "closed";
      await this.#shutdown();
      throw error;
    }
  }

  async append(batches: readonly Batch[]): Promise<void> {
    const db = this.#writable("append");
    const entries: EntryRecord[] = [];
    for (const batch of batches) entries.push(...batch.entries);
    if (entries.length === 0) return;
    const encoded = entries.map((entry) => entryToJson(entry));
    const meta: MetaRecord = { ...this.#meta, format: INDEXEDDB_FORMAT_VERSION, lastWriteAt: Date.now() };
    // The whole group is one transaction: every batch, so also every run chained by `continues`, is all or nothing.
    await this.#write(db, "append", (tx) => {
      const store = tx.objectStore(ENTRIES);
      // Puts run in order inside the transaction, so a later version of an id overwrites an earlier one.
      for (const json of encoded) store.put(json);
      tx.objectStore(META).put(meta, META_KEY);
    });
    this.#meta = meta;
    this.#written = true;
    for (const json of encoded) this.#track(json.id, json);
  }

  wantsCompaction(): boolean {
    return false;
  }

  /**
   * Whether `compact` would change the database: entries were stored since the last compaction (it then
   * checks the count), or the meta record lacks the embedder or is in an older format. Otherwise a close
   * writes nothing.
   */
  hasUncompacted(): boolean {
    if (this.#state !== "open" || this.#readOnly) return false;
    return this.#written || this.#meta.embedder === null || this.#meta.format < INDEXEDDB_FORMAT_VERSION;
  }

  /**
   * Read-only opens: reads the database again (O(entries): IndexedDB has no
   * cheaper way to tell what another tab wrote) and returns it whole; the store
   * applies what differs. Null for a writable open (it sees its own writes).
   */
  async refresh(): Promise<RefreshedState | null> {
    if (this.#state !== "open")
      throw new MoomemError("STORE_CLOSED", `${this.location}: refresh ${this.#state === "closed" ? "after close()" : "before load()"}`);
    if (!this.#readOnly || this.#db === null) return null;
    this.#sizes.clear();
    this.#entryBytes = 0;
    const state = await this.#readAll(this.#db);
    return { replace: true, entries: state.entries, embedder: state.embedder, formatVersion: state.formatVersion, lastWriteAt: state.lastWriteAt };
  }

  /**
   * Records the embedder identity. The entries need no rewrite: every append
   * already replaced the stored version of each entry it touched, atomically.
   * Only when `source` holds a different number of entries than the database
   * (the caller dropped some) are they replaced by `source`, in the same transaction.
   */
  async compact(source: SnapshotSource): Promise<void> {
    const db = this.#writable("compact");
    const meta: MetaRecord = { ...this.#meta, format: INDEXEDDB_FORMAT_VERSION, embedder: { id: source.embedder.id, dim: source.embedder.dim } };
    let replacement: EntryJson[] | null = null;
    // The entries are rewritten when the snapshot holds other entries than the store (a count that differs) or other
    // vectors (another embedder: a reembed recomputed every one in memory); otherwise every write already put them.
    const previous = this.#meta.embedder;
    const reembedded = previous !== null && (previous.id !== source.embedder.id || previous.dim !== source.embedder.dim);
    if (source.count !== this.#sizes.size || reembedded) {
      replacement = [];
      for (const entry of source.entries) replacement.push(entryToJson(entry));
    }
    await this.#write(db, "compact", (tx) => {
      if (replacement !== null) {
        const store = tx.objectStore(ENTRIES);
        store.clear();
        for (const json of replacement) store.put(json);
      }
      tx.objectStore(META).put(meta, META_KEY);
    });
    this.#meta = meta;
    this.#written = false;
    if (replacement !== null) {
      this.#sizes.clear();
      this.#entryBytes = 0;
      for (const json of replacement) this.#track(json.id, json);
    }
  }

  /**
   * `bytesOnDisk` is an estimate: the UTF-8 size of the JSON of every stored
   * record. Browsers do not report a per-database size (only
   * `navigator.storage.estimate()` for the whole origin), and what they store
   * (structured clones, LevelDB/SQLite pages, compression) differs by engine.
   */
  stats(): BackendStats {
    return { bytesOnDisk: this.#entryBytes + utf8Length(JSON.stringify(this.#meta)), lastWriteAt: this.#meta.lastWriteAt, formatVersion: this.#meta.format };
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    await this.#shutdown();
  }

  async #shutdown(): Promise<void> {
    this.#db?.close();
    this.#db = null;
    if (this.#holdsProcessLock && this.#factory !== null) {
      openWriters.get(this.#factory)?.delete(this.#dbName);
      this.#holdsProcessLock = false;
    }
    const release = this.#releaseWebLock;
    this.#releaseWebLock = null;
    // Wait until the lock manager has let go, so a reopen right after close() gets the lock.
    if (release !== null) await release();
  }

  #writable(operation: string): IDBDatabase {
    if (this.#state === "closed") throw new MoomemError("STORE_CLOSED", `${this.location}: ${operation} after close(); open the store again`);
    if (this.#state !== "open") throw new MoomemError("STORE_CLOSED", `${this.location}: ${operation} before load(); call load() first`);
    if (this.#readOnly) throw invalidArgument(`${this.location} was opened readOnly; ${operation} needs a writable open (readOnly: false)`);
    if (this.#db === null) throw new MoomemError("IO_FAILURE", `${this.location}: the database connection is gone; reopen the store`);
    return this.#db;
  }

  async #lock(factory: IDBFactory): Promise<void> {
    let writers = openWriters.get(factory);
    if (writers === undefined) {
      writers = new Set();
      openWriters.set(factory, writers);
    }
    if (writers.has(this.#dbName)) {
      throw new MoomemError(
        "STORE_LOCKED",
        `${this.location} is already open for writing in this page; close the other store first, or open with readOnly: true`,
      );
    }
    writers.add(this.#dbName);
    this.#holdsProcessLock = true;
    const locks = webLocks();
    if (locks === null) return;
    const release = await takeWebLock(locks, `moomem-writer:${this.#dbName}`);
    if (release === null) {
      throw new MoomemError(
        "STORE_LOCKED",
        `${this.location} is open for writing in another tab or worker of this origin; close it there, or open with readOnly: true`,
      );
    }
    this.#releaseWebLock = release;
  }

  #openDatabase(factory: IDBFactory): Promise<IDBDatabase | null> {
    return new Promise((resolve, reject) => {
      let request: IDBOpenDBRequest;
      try {
        request = factory.open(this.#dbName, INDEXEDDB_SCHEMA_VERSION);
      } catch (error) {
        reject(ioFailure(`${this.location}: IndexedDB refused to open the database`, error));
        return;
      }
      let abortedEmpty = false;
      request.onupgradeneeded = (event) => {
        const tx = request.transaction;
        // Only a brand-new database (oldVersion 0) gets here: a newer one fails with VersionError instead.
        if (tx === null || event.oldVersion !== 0) return;
        if (this.#readOnly) {
          // Never create a database from a read-only open.
          abortedEmpty = true;
          tx.abort();
          return;
        }
        const db = request.result;
        db.createObjectStore(ENTRIES, { keyPath: "id" });
        db.createObjectStore(META).put(this.#meta, META_KEY);
      };
      request.onsuccess = () => {
        const db = request.result;
        // Another connection wants to upgrade or delete the database: step aside rather than block it.
        db.onversionchange = () => db.close();
        resolve(db);
      };
      request.onerror = (event) => {
        event.preventDefault();
        const error = request.error;
        if (abortedEmpty) {
          resolve(null);
        } else if (error?.name === "VersionError") {
          reject(
            new MoomemError(
              "STORE_CORRUPTED",
              `${this.location} has a newer schema than version ${INDEXEDDB_SCHEMA_VERSION}; it was written by a newer moomem, so upgrade moomem to open it`,
              { cause: error },
            ),
          );
        } else {
          reject(ioFailure(`${this.location}: could not open the database`, error));
        }
      };
    });
  }

  async #readAll(db: IDBDatabase): Promise<LoadedState> {
    if (!db.objectStoreNames.contains(ENTRIES) || !db.objectStoreNames.contains(META)) {
      throw new MoomemError(
        "STORE_CORRUPTED",
        `${this.location} lacks the "${ENTRIES}" or "${META}" object store; it was not written by moomem (delete it in devtools if it holds nothing of value)`,
      );
    }
    let values: unknown[];
    let metaValue: unknown;
    try {
      const tx = db.transaction([ENTRIES, META], "readonly");
      const done = transactionDone(tx);
      const all = requestResult(tx.objectStore(ENTRIES).getAll());
      const meta = requestResult(tx.objectStore(META).get(META_KEY));
      [values, metaValue] = await Promise.all([all, meta, done]);
    } catch (error) {
      throw ioFailure(`${this.location}: could not read the stored entries`, error);
    }
    this.#meta = this.#parseMeta(metaValue);
    const entries: EntryRecord[] = [];
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      let entry: EntryRecord;
      try {
        entry = entryFromJson(value);
      } catch (error) {
        const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
        throw new MoomemError(
          "STORE_CORRUPTED",
          `${this.location}: stored entry ${i + 1} (id ${JSON.stringify(id) ?? "?"}) cannot be read: ${describeError(error)}`,
          { cause: error },
        );
      }
      entries.push(entry);
      this.#track(entry.id, value);
    }
    entries.sort((a, b) => a.seq - b.seq);
    return {
      entries,
      embedder: this.#meta.embedder,
      truncatedRecovered: 0,
      formatVersion: this.#meta.format,
      lastWriteAt: this.#meta.lastWriteAt,
    };
  }

  #parseMeta(value: unknown): MetaRecord {
    const bad = (what: string): never => {
      throw new MoomemError("STORE_CORRUPTED", `${this.location}: the meta record ${what}; the database was not written by this moomem`);
    };
    if (typeof value !== "object" || value === null) return bad("is missing");
    const o = value as Record<string, unknown>;
    const format = o["format"];
    if (typeof format !== "number" || !Number.isSafeInteger(format) || format < 1) return bad(`has an invalid format ${JSON.stringify(format) ?? "?"}`);
    if (format > INDEXEDDB_FORMAT_VERSION) {
      throw new MoomemError(
        "STORE_CORRUPTED",
        `${this.location} holds format version ${format}, newer than the ${INDEXEDDB_FORMAT_VERSION} this moomem reads; upgrade moomem to open it`,
      );
    }
    if (format < OLDEST_INDEXEDDB_FORMAT) return bad(`names format ${format}, which IndexedDB stores never had`);
    const embedder = o["embedder"];
    let identity: EmbedderIdentity | null = null;
    if (embedder !== null && embedder !== undefined) {
      const e = embedder as Record<string, unknown>;
      if (typeof e !== "object" || typeof e["id"] !== "string" || typeof e["dim"] !== "number" || !Number.isSafeInteger(e["dim"])) {
        return bad(`has an invalid embedder ${JSON.stringify(embedder)}`);
      }
      identity = { id: e["id"], dim: e["dim"] };
    }
    const lastWriteAt = o["lastWriteAt"];
    if (lastWriteAt !== null && lastWriteAt !== undefined && (typeof lastWriteAt !== "number" || !Number.isFinite(lastWriteAt))) {
      return bad(`has an invalid lastWriteAt ${JSON.stringify(lastWriteAt)}`);
    }
    return { format, embedder: identity, lastWriteAt: typeof lastWriteAt === "number" ? lastWriteAt : null };
  }

  async #write(db: IDBDatabase, operation: string, fill: (tx: IDBTransaction) => void): Promise<void> {
    try {
      const tx = db.transaction([ENTRIES, META], "readwrite", { durability: this.#durability });
      const done = transactionDone(tx);
      try {
        fill(tx);
      } catch (error) {
        // A put threw (e.g. DataCloneError): nothing may be kept, so end the transaction here.
        tx.abort();
        await done.catch(() => undefined);
        throw error;
      }
      await done;
    } catch (error) {
      throw ioFailure(`${this.location}: ${operation} failed and nothing of it was stored`, error);
    }
  }

  #track(id: string, json: unknown): void {
    const size = utf8Length(JSON.stringify(json));
    this.#entryBytes += size - (this.#sizes.get(id) ?? 0);
    this.#sizes.set(id, size);
  }
}

function findIndexedDb(name: string): IDBFactory {
  const factory = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (factory === undefined || factory === null) {
    throw new MoomemError(
      "BACKEND_UNSUPPORTED",
      `IndexedDB is not available in this runtime, so store "${name}" cannot be opened in the browser backend. ` +
        `On Node, Bun or Deno import from "moomem/node" to keep the store in files; use ":memory:" for a store that is not kept; ` +
        `or pass an IndexedDB implementation (e.g. fake-indexeddb) as { indexedDB }.`,
    );
  }
  return factory;
}

function webLocks(): LockManager | null {
  const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
  return nav?.locks ?? null;
}

/**
 * Takes an exclusive Web Lock if free. Resolves to a release function (which
 * resolves once the lock manager has let go), or null when another holder has it.
 */
function takeWebLock(locks: LockManager, name: string): Promise<(() => Promise<void>) | null> {
  return new Promise((resolve, reject) => {
    let letGo!: () => void;
    const held = new Promise<void>((done) => {
      letGo = done;
    });
    const settled = locks.request(name, { ifAvailable: true }, (lock) => {
      if (lock === null) {
        resolve(null);
        return undefined;
      }
      resolve(async () => {
        letGo();
        await settled;
      });
      // The lock is held until this promise settles, i.e. until close().
      return held;
    });
    settled.catch((error: unknown) =>
      reject(new MoomemError("IO_FAILURE", `could not take the Web Lock "${name}": ${describeError(error)}`, { cause: error })),
    );
  });
}

function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB request failed"));
  });
}

function transactionDone(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error("IndexedDB transaction failed"));
    tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
  });
}

function ioFailure(message: string, error: unknown): MoomemError {
  if (error instanceof MoomemError) return error;
  return new MoomemError("IO_FAILURE", `${message}: ${describeError(error)}`, { cause: error });
}

let encoder: TextEncoder | null = null;

function utf8Length(text: string): number {
  encoder ??= new TextEncoder();
  return encoder.encode(text).length;
}
