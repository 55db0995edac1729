// MemoryStore: the public facade. Each call checks its arguments, then runs one module's work in the write
// queue (writes) or on durable state (reads); the work itself lives in ingest/, recall/, transfer/ and the rule files here.

import type { AddInput, AddSummary, EntryStatus, ImportSummary, MemoryEntry, RecallHit, StoreStats, TornTail } from "../types.ts";
import { ENTRY_STATUSES } from "../types.ts";
import { countsShared, loadsUsers, writesShared, type EmbedderIdentity, type PersistenceBackend } from "../persistence/backend.ts";
import { MoomemError, invalidArgument } from "../errors.ts";
import { nothingFromUser } from "../text/transcript.ts";
import { ExtractionGuard } from "../ingest/extract.ts";
import { commitAdd, prepareAdd, type AddPipeline } from "../ingest/add-pipeline.ts";
import { callBackend, callBackendSync, hasUncompacted, readClock, wantsCompaction } from "../validation/plugin-checks.ts";
import {
  checkAddInput,
  checkAddManyInputs,
  checkImportSource,
  checkKnownKeys,
  checkMetadata,
  checkOptions,
  checkQuery,
  checkTime,
  checkUserId,
  describe,
} from "../validation/arguments.ts";
import { isLive, type EntryState } from "../state/entry-state.ts";
import { SeqCounter } from "../state/ids.ts";
import { SharedCatchUp } from "./shared-catch-up.ts";
import { toPublicEntry } from "../state/public-entry.ts";
import { matchesFilter, readFilter } from "../recall/entry-filter.ts";
import { prepareQuery, readRecallOptions, searchUser, type RecallSettings } from "../recall/recall.ts";
import { checkFoldable } from "../persistence/lifecycle-codec.ts";
import { EXPORT_ENTRY_FORMAT, EXPORT_FORMAT, LEGACY_EXPORT_ENTRY_FORMAT, entryLine, headerLine } from "../transfer/jsonl-transfer.ts";
import { applyImport, embedImported, readImport, readImportOptions } from "../transfer/import-entries.ts";
import { WriteQueue } from "./write-queue.ts";
import { StoreFollower } from "./store-follower.ts";
import { buildProfile, type UserProfile } from "./profile.ts";
import type { UserSummary } from "./user-summaries.ts";
import { readOpenOptions, type BackendFactory, type OpenOptions } from "./open-options.ts";
import { loadStore, openCatalog } from "./open-store.ts";
import { UserLoader } from "./user-loading.ts";
import { exportRecords, importUsers, reextractTargets, statusCounts, summarizeAll } from "./per-user-reads.ts";
import { forgetEntries, readForgetArgs } from "./forget.ts";
import { restoreEntry } from "./restore.ts";
import { historyOf } from "./history.ts";
import { reextractEntries } from "./reextract.ts";
import { addMany } from "./add-many.ts";
import { importUnloaded } from "./import-unloaded.ts";
import { ExportWatch } from "./export-stream.ts";
import { StoreWideCounts } from "./shared-counts.ts";
import type { AddOptions, ExportOptions, ForgetOptions, ForgetTarget, ImportOptions, ListOptions, RecallOptions, ReextractSummary } from "./options.ts";

/**
 * An embedded long-term memory: per-user facts that survive restarts,
 * recalled by meaning and keywords, replaced when they change.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "moomem";
 * const mem = await MemoryStore.open("./memory");
 * await mem.add("user-42", "I'm allergic to peanuts");
 * const hits = await mem.recall("user-42", "what should I cook for lunch?", { topK: 5 });
 * await mem.close();
 * ```
 */
export class MemoryStore {
  readonly #backend: PersistenceBackend;
  readonly #pipeline: AddPipeline;
  readonly #recall: RecallSettings;
  readonly #readOnly: boolean;
  readonly #state: EntryState;
  readonly #queue: WriteQueue;
  readonly #identity: EmbedderIdentity;
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #follower: StoreFollower;
  readonly #users: UserLoader;
  readonly #exports: ExportWatch;
  /**
   * Other processes write this store too (PostgreSQL): whole-store export and import then read the backend
   * (`scan`), which sees every process's users, rather than this process's catalog (export-stream.ts,
   * import-unloaded.ts), which knows only the users it has served since it opened.
   */
  readonly #sharedWrites: boolean;
  /** Other processes write this store: `users()` and `stats()` count in the backend (shared-counts.ts); null otherwise. */
  readonly #storeWide: StoreWideCounts | null;
  #truncatedRecovered: number;
  #formatVersion: number;
  #closed = false;
  #closing: Promise<void> | null = null;
  #compactionQueued = false;

  protected constructor(parts: {
    backend: PersistenceBackend;
    pipeline: AddPipeline;
    recall: RecallSettings;
    readOnly: boolean;
    state: EntryState;
    truncatedRecovered: number;
    formatVersion: number;
    identity: EmbedderIdentity;
    follow: boolean;
    tornTails: TornTail[];
    users: UserLoader;
  }) {
    this.#backend = parts.backend;
    this.#pipeline = parts.pipeline;
    this.#recall = parts.recall;
    this.#readOnly = parts.readOnly;
    this.#state = parts.state;
    this.#truncatedRecovered = parts.truncatedRecovered;
    this.#formatVersion = parts.formatVersion;
    this.#identity = parts.identity;
    this.#users = parts.users;
    // Several processes write a shared backend: seqs from it, a catch-up before each call, retries on a conflict.
    const shared =
      !parts.readOnly && writesShared(parts.backend) && parts.users.perUser ? new SharedCatchUp(parts.state, parts.backend, () => this.#queue) : null;
    this.#queue = new WriteQueue(
      parts.state,
      parts.backend,
      () => this.#maybeCompact(),
      shared && { seqs: parts.pipeline.seqs, catchUp: (u) => shared.catchUp(u) },
    );
    if (shared !== null) parts.users.catchUpWith((u, kind) => shared.beforeCall(u, kind));
    this.#sharedWrites = shared !== null;
    this.#storeWide = shared !== null && countsShared(parts.backend) ? new StoreWideCounts(parts.backend, this.#queue) : null;
    this.#exports = new ExportWatch(parts.state);
    this.#queue.onWrite((userId) => this.#exports.beforeWrite(userId));
    this.#follower = new StoreFollower(parts.backend, parts.state, {
      readOnly: parts.readOnly,
      follow: parts.follow,
      identity: parts.identity,
      tornTails: parts.tornTails,
    });
  }

  /**
   * Opens (or creates) the store at `path` and recovers it after a crash.
   * `":memory:"` keeps everything in memory. From the universal entry, other
   * paths need `options.backend`; `moomem/node` and `moomem/browser` (picked
   * automatically by `import "moomem"`) default to files and IndexedDB.
   *
   * @example
   * ```ts
   * const mem = await MemoryStore.open(":memory:");
   * ```
   */
  static open(path: string, options?: OpenOptions): Promise<MemoryStore> {
    return MemoryStore.openWith(path, options, (p) => {
      throw new MoomemError(
        "BACKEND_UNSUPPORTED",
        `no default storage for path ${describe(p, 300)} in this runtime; use ":memory:", pass { backend }, or import from "moomem/node" or "moomem/browser"`,
      );
    });
  }

  /** Opens with a runtime's default backend factory (used by the runtime entries). */
  static async openWith(path: string, options: OpenOptions | undefined, defaultBackend: BackendFactory): Promise<MemoryStore> {
    const plan = readOpenOptions(path, options, defaultBackend);
    const { backend } = plan;
    // A writable open of a backend that loads users when asked reads only its catalog (store/user-loading.ts).
    const opened =
      !plan.readOnly && loadsUsers(backend)
        ? await openCatalog(backend, plan.embedder, plan.identity, plan.reembed)
        : await loadStore(backend, plan.embedder, plan.identity, plan.reembed);
    const { loaded } = opened;
    const store = new MemoryStore({
      backend,
      pipeline: {
        extractor: plan.extractor,
        verbatim: plan.verbatim,
        embedder: plan.embedder,
        dim: plan.identity.dim,
        judge: plan.judge,
        fallbackJudge: plan.fallbackJudge,
        clock: plan.clock,
        maxContentChars: plan.maxContentChars,
        judgeByVector: plan.judgeByVector,
        guard: new ExtractionGuard(),
        seqs: new SeqCounter(
          opened.nextSeq,
          !plan.readOnly && writesShared(backend)
            ? { reserve: (count, after) => backend.reserveSeqs(count, after), release: (first, end) => backend.releaseSeqs(first, end) }
            : null,
        ),
      },
      recall: plan.recall,
      readOnly: plan.readOnly,
      state: opened.state,
      truncatedRecovered: loaded.truncatedRecovered,
      formatVersion: loaded.formatVersion,
      identity: opened.identity,
      follow: plan.follow,
      tornTails: loaded.tornTails ?? [],
      users: new UserLoader(opened.state, opened.perUser && loadsUsers(backend) ? backend : null, plan.maxLoadedUsers),
    });
    // A new store records its embedder at once; an old-format store is rewritten in the current one.
    if (!plan.readOnly && (loaded.embedder === null || loaded.formatVersion < 2 || loaded.outdated === true || opened.reembedded)) {
      try {
        await store.#compactNow(opened.reembedded);
      } catch (error) {
        await backend.close();
        throw error;
      }
    }
    return store;
  }

  /**
   * Remembers what the user said: extracts facts, skips duplicates, embeds,
   * supersedes facts that changed, and persists it all as one atomic write.
   *
   * @example
   * ```ts
   * const summary = await mem.add("user-42", "I moved to Shenzhen", { metadata: { channel: "chat" } });
   * console.log(summary.facts); // what was understood and what happened to each fact
   * ```
   */
  add(userId: string, input: AddInput, options?: AddOptions): Promise<AddSummary> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      const text = checkAddInput(input);
      const o = checkOptions(options, "add options");
      checkKnownKeys(o, ["metadata", "observedAt"], "add");
      const metadata = o["metadata"] === undefined ? {} : checkMetadata(o["metadata"], "add: metadata");
      const observedAt = o["observedAt"] === undefined ? undefined : checkTime(o["observedAt"], "add: observedAt");
      const silent = typeof text === "string" ? null : nothingFromUser(text);
      if (silent !== null)
        return { extracted: 0, inserted: 0, duplicates: 0, superseded: 0, conflicts: 0, degraded: false, facts: [], nothingExtracted: silent };
      // Extraction and embedding need no store state: they run before taking the write queue.
      const prepared = await prepareAdd(this.#pipeline, userId, text);
      // "add": on a shared store the write's transaction checks the user's version itself (see SharedCatchUp.beforeCall).
      return this.#users.use(
        userId,
        () => this.#queue.write((change) => commitAdd(change, this.#state.user(userId), prepared, this.#pipeline, { metadata, observedAt }), userId),
        "add",
      );
    });
  }

  /**
   * Adds many inputs of one user (at most 1,000 per call), as if `add` had been called for each in
   * order: later inputs are deduplicated and judged against the facts of earlier ones. Extraction runs
   * per input, embedding in one embedder call for all, and everything is persisted as ONE atomic write
   * (all or nothing). `options` apply to every input. Resolves to one summary per input, in order.
   *
   * @example
   * ```ts
   * const summaries = await mem.addMany("user-42", ["I live in Beijing", "I moved to Shenzhen"]);
   * console.log(summaries[1].superseded); // 1: the second input replaced the first one's fact
   * ```
   */
  addMany(userId: string, inputs: readonly AddInput[], options?: AddOptions): Promise<AddSummary[]> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      const texts = checkAddManyInputs(inputs);
      const o = checkOptions(options, "addMany options");
      checkKnownKeys(o, ["metadata", "observedAt"], "addMany");
      const metadata = o["metadata"] === undefined ? {} : checkMetadata(o["metadata"], "addMany: metadata");
      const observedAt = o["observedAt"] === undefined ? undefined : checkTime(o["observedAt"], "addMany: observedAt");
      return addMany(this.#pipeline, userId, texts, {
        metadata,
        observedAt,
        write: (commit) => this.#users.use(userId, () => this.#queue.write((change) => commit(change, this.#state.user(userId)), userId), "add"),
      });
    });
  }

  /**
   * Finds the user's memories most relevant to `query`: vector and BM25
   * routes fused (standardised scores by default, or RRF); only active and unstructured entries; `[]` when
   * nothing matches.
   *
   * @example
   * ```ts
   * const hits = await mem.recall("user-42", "food allergies", { topK: 3 });
   * for (const h of hits) console.log(h.score.toFixed(4), h.content);
   * ```
   */
  recall(userId: string, query: string, options?: RecallOptions): Promise<RecallHit[]> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      checkQuery(query, "recall");
      const request = readRecallOptions(checkOptions(options, "recall options"));
      const prepared = await prepareQuery(this.#pipeline.embedder, this.#identity.dim, query, request.mode);
      return this.#users.use(userId, () => this.#durable(() => searchUser(this.#state.user(userId), prepared, request, this.#recall)));
    });
  }

  /**
   * Forgets one entry (`{ id }`) or all of the user's (`{ all: true }`):
   * status `deleted`, out of the indexes, kept on disk (undo with `restore`)
   * unless `purge` erases the content. Resolves to the number of entries affected.
   *
   * @example
   * ```ts
   * await mem.forget("user-42", { id: hits[0].id });
   * await mem.forget("user-42", { all: true }, { purge: true }); // right to be forgotten
   * ```
   */
  forget(userId: string, target: ForgetTarget, options?: ForgetOptions): Promise<number> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      const request = readForgetArgs(target, options);
      return this.#users.use(userId, () =>
        this.#queue.write(async (change) => forgetEntries(change, this.#state.user(userId), request, readClock(this.#pipeline.clock)), userId),
      );
    });
  }

  /**
   * Undoes a forget (deleted → its earlier status) or a wrong supersede (the
   * entry is active again and the entry that replaced it becomes superseded
   * by it). Resolves to the restored entry.
   *
   * @example
   * ```ts
   * const [old] = await mem.list("user-42", { status: "superseded" });
   * await mem.restore("user-42", old.id);
   * ```
   */
  restore(userId: string, id: string): Promise<MemoryEntry> {
    return this.#track(async () => {
      this.#checkWritable();
      checkUserId(userId);
      if (typeof id !== "string" || id.length === 0) throw invalidArgument(`restore: id must be a non-empty string, got ${describe(id)}`);
      return this.#users.use(userId, () =>
        this.#queue.write(async (change) => toPublicEntry(restoreEntry(change, this.#state.user(userId), id, this.#pipeline.clock)), userId),
      );
    });
  }

  /**
   * The user's entries in `seq` order (default: every status).
   *
   * @example
   * ```ts
   * const active = await mem.list("user-42", { status: "active" });
   * ```
   */
  list(userId: string, options?: ListOptions): Promise<MemoryEntry[]> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      const o = checkOptions(options, "list options");
      checkKnownKeys(o, ["status", "since", "until", "kind", "metadata"], "list");
      const status = o["status"] ?? "all";
      if (status !== "all" && !ENTRY_STATUSES.includes(status as EntryStatus)) {
        throw invalidArgument(`list: status must be one of ${ENTRY_STATUSES.join(", ")} or "all", got ${describe(status)}`);
      }
      const filter = readFilter(o, "list");
      return this.#users.use(userId, () =>
        this.#durable(() =>
          this.#state
            .entriesOf(userId)
            .filter((r) => (status === "all" || r.status === status) && (filter === undefined || matchesFilter(r, filter)))
            .map(toPublicEntry),
        ),
      );
    });
  }

  /**
   * What the store currently knows about the user: each key slot's latest
   * live value, the rest grouped by kind. Deterministic, no model call.
   *
   * @example
   * ```ts
   * const { slots } = await mem.profile("user-42");
   * const system = Object.entries(slots).map(([key, s]) => `${key}: ${s.value}`).join("\n");
   * ```
   */
  profile(userId: string): Promise<UserProfile> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      return this.#users.use(userId, () =>
        this.#durable(() =>
          buildProfile(
            this.#state
              .entriesOf(userId)
              .filter((r) => isLive(r.status))
              .map(toPublicEntry),
            userId,
          ),
        ),
      );
    });
  }

  /**
   * Every user with at least one entry: counts per status and the time of their latest change, sorted by user id.
   *
   * @example
   * ```ts
   * for (const u of await mem.users()) console.log(u.userId, u.active, new Date(u.lastWriteAt));
   * ```
   */
  users(): Promise<UserSummary[]> {
    return this.#track(async () => {
      this.#checkOpen();
      if (this.#storeWide !== null) return this.#storeWide.users();
      return this.#durable(() => summarizeAll(this.#state));
    });
  }

  /**
   * The supersede chain through `id` (what it replaced and what replaced it), oldest first.
   *
   * @example
   * ```ts
   * const chain = await mem.history("user-42", entryId); // e.g. [Beijing (superseded), Shenzhen (active)]
   * ```
   */
  history(userId: string, id: string): Promise<MemoryEntry[]> {
    return this.#track(async () => {
      this.#checkOpen();
      checkUserId(userId);
      if (typeof id !== "string" || id.length === 0) throw invalidArgument(`history: id must be a non-empty string, got ${describe(id)}`);
      return this.#users.use(userId, () => this.#durable(() => historyOf(this.#state.user(userId), id).map(toPublicEntry)));
    });
  }

  /**
   * Counts per status, users, bytes on disk, last write time and recovery counters.
   *
   * @example
   * ```ts
   * const { active, bytesOnDisk } = await mem.stats();
   * ```
   */
  stats(): Promise<StoreStats> {
    return this.#track(async () => {
      this.#checkOpen();
      // Other processes write the store: its counts are the backend's now; loadedUsers and loadedBytes stay this process's.
      const storeWide = this.#storeWide === null ? null : await this.#storeWide.counts();
      return this.#durable(() => {
        const { users, ...counts } = statusCounts(this.#state);
        const disk = callBackendSync(this.#backend.location, "reading the stats", () => this.#backend.stats());
        return {
          total: this.#state.size,
          ...counts,
          users,
          bytesOnDisk: disk.bytesOnDisk,
          lastWriteAt: disk.lastWriteAt,
          ...storeWide,
          truncatedRecovered: this.#truncatedRecovered,
          tornTails: this.#follower.tornTails,
          extractorMode: this.#pipeline.extractor.mode,
          formatVersion: this.#formatVersion,
        };
      });
    });
  }

  /**
   * Streams the store (or one user) as JSON Lines: a header, then one entry
   * per line in the on-disk shape. Feed it to `import` to rebuild the store.
   *
   * @example
   * ```ts
   * for await (const line of mem.export({ userId: "user-42" })) process.stdout.write(line);
   * ```
   */
  export(options?: ExportOptions): AsyncIterable<string> {
    this.#checkOpen();
    const o = checkOptions(options, "export options");
    checkKnownKeys(o, ["userId", "entryFormat"], "export");
    const userId = o["userId"] === undefined ? null : checkUserId(o["userId"]);
    const entryFormat = o["entryFormat"] ?? EXPORT_ENTRY_FORMAT;
    if (entryFormat !== EXPORT_ENTRY_FORMAT && entryFormat !== LEGACY_EXPORT_ENTRY_FORMAT) {
      throw invalidArgument(
        `export: entryFormat must be ${EXPORT_ENTRY_FORMAT} (default) or ${LEGACY_EXPORT_ENTRY_FORMAT} (for a moomem before 0.2), got ${describe(entryFormat)}`,
      );
    }
    return { [Symbol.asyncIterator]: () => this.#exportLines(userId, entryFormat) };
  }

  async *#exportLines(userId: string | null, entryFormat: number): AsyncGenerator<string> {
    this.#checkOpen();
    await this.#follower.beforeCall();
    if (userId === null && this.#users.perUser && !this.#sharedWrites && entryFormat === EXPORT_ENTRY_FORMAT) {
      yield* this.#exportStreamed();
      return;
    }
    const records = await exportRecords(userId, this.#users, this.#queue, this.#backend, (read) => this.#durable(read), this.#state);
    const legacy = entryFormat === LEGACY_EXPORT_ENTRY_FORMAT;
    // Refused before the first line, so a refused export writes nothing.
    if (legacy) for (const record of records) checkFoldable(record.metadata, record.id);
    yield headerLine({
      moomem_export: EXPORT_FORMAT,
      entry_format: entryFormat,
      embedder: this.#identity,
      user_id: userId,
      exported_at: readClock(this.#pipeline.clock),
      count: records.length,
    });
    for (const record of records) yield entryLine(record, legacy);
  }

  /** Every user, one at a time, as the store was when the export started (see export-stream.ts), without holding the write queue. */
  async *#exportStreamed(): AsyncGenerator<string> {
    const start = () => this.#durable(() => ({ users: [...this.#state.users()], count: this.#state.size, lastSeq: this.#pipeline.seqs.last }));
    for await (const part of this.#exports.stream(start, this.#users, (read) => this.#durable(read))) {
      if (typeof part === "number") {
        yield headerLine({
          moomem_export: EXPORT_FORMAT,
          entry_format: EXPORT_ENTRY_FORMAT,
          embedder: this.#identity,
          user_id: null,
          exported_at: readClock(this.#pipeline.clock),
          count: part,
        });
      } else {
        for (const record of part) yield entryLine(record);
      }
    }
  }

  /**
   * Imports JSON Lines written by `export` (any sync or async iterable of
   * lines or chunks). Every line is checked first, with `add`'s rules, and
   * every link (`superseded_by`, `conflict`) must name an entry of the same
   * user in the store or in the import: one bad line imports nothing. The
   * header's count must match the entries read (a cut export is refused)
   * unless `{ partial: true }`. Entries keep their ids, statuses, chains,
   * times and metadata; vectors made by another embedder are recomputed.
   * The checks and limits are listed in the README ("Export and import").
   *
   * @example
   * ```ts
   * const summary = await mem.import(otherStore.export());
   * ```
   */
  import(lines: Iterable<string> | AsyncIterable<string>, options?: ImportOptions): Promise<ImportSummary> {
    return this.#track(async () => {
      this.#checkWritable();
      const source = checkImportSource(lines);
      const { partial } = readImportOptions(options);
      const parsed = await readImport(source, partial, this.#pipeline.maxContentChars);
      if (this.#users.bounded && !this.#sharedWrites) {
        const { embedder, seqs } = this.#pipeline;
        return importUnloaded(parsed, partial, {
          state: this.#state,
          queue: this.#queue,
          backend: this.#backend,
          users: this.#users,
          embedder,
          identity: this.#identity,
          seqs,
        });
      }
      // Per-user loading: the users the import names, and those holding an id it names, are loaded for its checks.
      const users = await importUsers(parsed.entries, this.#users, this.#queue, this.#backend);
      return this.#users.use(users, async () => {
        const stored = (id: string): ReturnType<EntryState["get"]> => this.#state.get(id);
        await embedImported(parsed, () => Promise.resolve(stored), partial, this.#pipeline.embedder, this.#identity);
        return this.#queue.write(async (change) => applyImport(change, parsed, stored, partial, this.#pipeline.seqs));
      });
    });
  }

  /**
   * Runs the extractor again over entries stored `unstructured` because
   * extraction failed (e.g. the model was down): each becomes extracted facts,
   * deduplicated and judged as in a fresh add, and the raw entry is marked
   * superseded by them (or deleted when the extractor finds no fact). Entries
   * whose extraction fails again stay as they are. Without `userId`, every user.
   * Needs a fact extractor: with one that keeps text as it is (`verbatim`, such
   * as the `RawExtractor`), it throws `INVALID_ARGUMENT` and changes nothing.
   *
   * @example
   * ```ts
   * const { converted, failed } = await mem.reextract("user-42");
   * ```
   */
  reextract(userId?: string): Promise<ReextractSummary> {
    return this.#track(async () => {
      this.#checkWritable();
      if (userId !== undefined) checkUserId(userId);
      if (this.#pipeline.verbatim) {
        throw invalidArgument(
          `reextract: the store was opened with an extractor that keeps text as it is and finds no facts (${this.#pipeline.extractor.mode}, verbatim), so there is nothing to reextract with; open the store with a fact extractor (the default PatternExtractor, or LlmExtractor from moomem/openai: moomem --llm reextract)`,
        );
      }
      if (this.#users.perUser)
        return reextractTargets(userId, this.#users, this.#state, (targets) => reextractEntries(targets, this.#pipeline, this.#queue, this.#state));
      const targets = await this.#durable(() => {
        const users = userId === undefined ? [...this.#state.users()] : [userId];
        return users.flatMap((u) => this.#state.entriesOf(u).filter((e) => e.status === "unstructured"));
      });
      return reextractEntries(targets, this.#pipeline, this.#queue, this.#state);
    });
  }

  /**
   * Flushes, compacts the journal into a snapshot and releases the lock.
   * Idempotent; every other call then throws `STORE_CLOSED`.
   *
   * @example
   * ```ts
   * await mem.close();
   * ```
   */
  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    this.#closed = true;
    this.#closing = (async () => {
      await Promise.allSettled([...this.#inflight]);
      try {
        await this.#queue.exclusive(async () => {
          if (!this.#readOnly) await this.#pipeline.seqs.release().catch(() => {}); // a gap in the seqs costs nothing
          // Only when there is something to fold: a store opened, read and closed rewrites nothing.
          if (!this.#readOnly && hasUncompacted(this.#backend)) await this.#compactNow();
        });
      } finally {
        await callBackend(this.#backend.location, "closing", () => this.#backend.close());
      }
    })();
    return this.#closing;
  }

  /**
   * Read-only stores: reads what the writer committed since the store was
   * opened or last refreshed (new journal records; the whole store again
   * after the writer compacted) and applies it. Resolves to whether anything
   * changed. Whole operations only: a reader never sees half of an add or an
   * import. On a writable store (which sees its own writes) and on backends
   * nobody else writes (`":memory:"`) it resolves to false.
   *
   * @example
   * ```ts
   * const reader = await MemoryStore.open("./memory", { readOnly: true });
   * // … another process adds …
   * if (await reader.refresh()) console.log("caught up");
   * ```
   */
  refresh(): Promise<boolean> {
    return this.#track(async () => {
      this.#checkOpen();
      return this.#follower.refresh();
    });
  }

  /** `await using mem = await MemoryStore.open(...)` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The embedder identity stored with the vectors. */
  get embedderIdentity(): EmbedderIdentity {
    return { ...this.#identity };
  }

  #maybeCompact(): void {
    if (this.#compactionQueued || this.#closed || !wantsCompaction(this.#backend)) return;
    this.#compactionQueued = true;
    this.#queue
      .exclusive(async () => {
        this.#compactionQueued = false;
        if (!this.#closed) await this.#compactNow();
      })
      .catch(() => {
        // Nothing is lost: the journal still holds every acknowledged write. The next trigger
        // compacts again, and close() compacts once more and rejects if that fails too.
      });
  }

  /** `whole`: from the entries in memory even when users are loaded when asked (after `reembed`, which loaded them all). */
  async #compactNow(whole = false): Promise<void> {
    const location = this.#backend.location;
    const backend = this.#backend;
    if (this.#users.perUser && !whole && loadsUsers(backend)) await callBackend(location, "compacting", () => backend.compactStored(this.#identity));
    else await callBackend(location, "compacting", () => backend.compact({ embedder: this.#identity, count: this.#state.size, entries: this.#state.all() }));
    this.#formatVersion = callBackendSync(location, "reading the stats", () => this.#backend.stats()).formatVersion ?? this.#formatVersion;
  }

  /** Runs a read once every write it could observe is durable (recomputing if one was rolled back). */
  async #durable<T>(read: () => T): Promise<T> {
    for (;;) {
      const barrier = this.#queue.barrier();
      const value = read();
      if (barrier === null || (await barrier)) return value;
    }
  }

  #track<T>(fn: () => Promise<T>): Promise<T> {
    let p: Promise<T>;
    try {
      // With `follow`, a call first catches up with the writer.
      const caughtUp = this.#closed ? null : this.#follower.beforeCall();
      p = caughtUp === null ? fn() : caughtUp.then(fn);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#inflight.add(p);
    const done = (): void => {
      this.#inflight.delete(p);
    };
    p.then(done, done);
    return p;
  }

  #checkOpen(): void {
    if (this.#closed) throw new MoomemError("STORE_CLOSED", `the store at ${this.#backend.location} is closed; open it again to use it`);
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (this.#readOnly)
      throw new MoomemError("READ_ONLY", `the store at ${this.#backend.location} was opened with { readOnly: true }; open it without readOnly to write`);
  }
}
