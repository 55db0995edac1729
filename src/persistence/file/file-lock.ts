// The writer lock of a file store: numbered lock points taken by exclusive creation, alive as a listening socket (or, where sockets cannot live, a lease).

import { MoomemError } from "../../errors.ts";
import { errorCode, type FileSystem, type ProcessIdentity, type SocketListener } from "./file-system.ts";
import { decodeUtf8, encodeUtf8 } from "../line-reader.ts";
import { processStartToken, refuseLegacyHolder, removeLegacyLock, writeLegacyLock } from "./file-lock-legacy.ts";

/** Default lease of a lock point where no socket can be held: a holder that died blocks the store at most this long. */
export const DEFAULT_LEASE_MS = 10_000;
/** Bounds of `lockLeaseMs`: shorter leases are renewed too often, longer ones block too long after a crash. */
export const MIN_LEASE_MS = 200;
export const MAX_LEASE_MS = 600_000;
/** Codes of a file system that cannot make hard links (the socket point needs one). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EINVAL", "EMLINK"]);
/** Temp files of lock attempts older than this are leftovers of a process that died mid-attempt. */
const STALE_TEMP_MS = 60_000;

/** What a lock point's `.info` file (or a leased point's own content) says about its holder. */
export interface HolderInfo extends ProcessIdentity {
  /** ms since epoch the lock was taken. */
  since: number;
  token: string;
  /** Lease in ms for a leased point; null for a socket, which needs none. */
  lease: number | null;
}

/** Lock point `n` of a store folder is the file `LOCK.<n>`; its holder's details are in `LOCK.<n>.info`. */
export function lockPointName(n: number): string {
  return `LOCK.${n}`;
}

/** The number of a lock point's file name, or null for any other name. */
export function lockPointNumber(name: string): number | null {
  const m = /^LOCK\.([1-9]\d{0,14})$/.exec(name);
  return m === null ? null : Number(m[1]);
}

function randomToken(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function parseHolderInfo(bytes: Uint8Array | null): HolderInfo | null {
  const text = bytes === null ? null : decodeUtf8(bytes);
  if (text === null) return null;
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (typeof o["pid"] !== "number" || typeof o["since"] !== "number" || typeof o["token"] !== "string") return null;
    return {
      pid: o["pid"],
      thread: typeof o["thread"] === "number" ? o["thread"] : 0,
      pidNamespace: typeof o["pidNamespace"] === "string" ? o["pidNamespace"] : null,
      host: typeof o["host"] === "string" ? o["host"] : "",
      since: o["since"],
      token: o["token"],
      lease: typeof o["lease"] === "number" ? o["lease"] : null,
    };
  } catch {
    return null;
  }
}

/** How a refused opener is told who holds the store. */
function describeHolder(info: HolderInfo | null, me: ProcessIdentity): string {
  if (info === null) return "another writer that is still opening it";
  const thread = info.thread === 0 ? "" : `, thread ${info.thread}`;
  let where = "";
  if (info.host !== me.host) where = ` on host ${info.host}`;
  else if (info.pidNamespace !== me.pidNamespace)
    where = ` (in another pid namespace${info.pidNamespace === null ? "" : `, ${info.pidNamespace}`}: another container, or the host)`;
  else if (info.pid === me.pid) where = info.thread === me.thread ? " (this thread)" : " (this process)";
  return `pid ${info.pid}${where}${thread} since ${new Date(info.since).toISOString()}`;
}

/**
 * What is known about lock point `n`: held (with its holder's details), free, or gone (re-read the folder).
 * `lapsed` marks a free point that was judged by its lease: its holder may still come back and renew it.
 */
type Verdict = { held: true; info: HolderInfo | null; why?: string } | { held: false; lapsed?: true } | { gone: true };

/**
 * The writer lock on one store folder: at most one writer across threads,
 * processes, pid namespaces and containers of one host.
 *
 * The lock is the highest-numbered lock point `LOCK.<n>` in the folder. A
 * point is a Unix socket its holder listens on: connecting to it tells
 * whether the holder lives (the kernel answers even while the holder's
 * event loop is blocked, and closes the socket when the holder's thread or
 * process ends, by SIGKILL too: no pid is compared, so pid namespaces and
 * threads do not matter). To take the lock, a writer checks that the highest
 * point `n` is dead and creates `LOCK.<n+1>` by an exclusive link of its
 * already-listening socket: of all writers that saw `n` dead, exactly one
 * creates `n+1`; the others see it live and are refused.
 *
 * Where no socket can be made (Windows, some network and FUSE file systems)
 * the point is a regular file holding the holder's details, kept alive by a
 * heartbeat that moves its modification time every quarter lease; it is dead
 * once not renewed for a whole lease (`lockLeaseMs`, default 10 s). A writer
 * whose event loop stalled past half its lease renews (and checks that no one
 * took over) before it writes again; one that finds its lock taken refuses
 * every write with `STORE_LOCKED`.
 *
 * Numbers only grow: a released point stays behind as an empty file, so a
 * slow writer that saw an old number can never create the highest point
 * again. The point and its details are written when the lock is taken; older
 * points, the legacy `LOCK` file and leftovers are only touched once the open
 * is accepted ({@link FileLock.settle}), so an open that is refused leaves the
 * folder as it found it.
 *
 * Limits (docs/security.md): one host only (a socket is not shared across
 * machines, and a lease relies on the host's clock); a leased lock assumes
 * the wall clock does not jump forward by more than half a lease.
 */
export class FileLock {
  readonly #fs: FileSystem;
  readonly #dir: string;
  readonly #number: number;
  readonly #info: HolderInfo;
  readonly #location: string;
  readonly #listener: SocketListener | null;
  /** Identity of our point's file, to notice it being removed or replaced by hand. */
  readonly #pointId: string | null;
  #settled = false;
  #released = false;
  /** Why the lock was lost (a successor's point), once it was. */
  #lost: MoomemError | null = null;
  /** performance.now() when the lease was last renewed and confirmed (leased points only). */
  #confirmedAt = 0;
  #heartbeat: ReturnType<typeof setInterval> | null = null;
  #renewing: Promise<void> | null = null;

  private constructor(fs: FileSystem, dir: string, n: number, info: HolderInfo, location: string, listener: SocketListener | null, pointId: string | null) {
    this.#fs = fs;
    this.#dir = dir;
    this.#number = n;
    this.#info = info;
    this.#location = location;
    this.#listener = listener;
    this.#pointId = pointId;
    if (info.lease !== null) {
      this.#confirmedAt = performance.now();
      this.#heartbeat = setInterval(() => void this.#renew().catch(() => undefined), info.lease / 4);
      // Never keep the process alive just to renew a lock.
      (this.#heartbeat as { unref?: () => void }).unref?.();
    }
  }

  /**
   * Takes the lock of the store folder `dir`, or throws `STORE_LOCKED` naming
   * the holder. Changes nothing but its own new files (see {@link release}).
   *
   * @param location how the store is named in messages
   */
  static async acquire(fs: FileSystem, dir: string, location: string, leaseMs: number = DEFAULT_LEASE_MS): Promise<FileLock> {
    const me = await fs.identity();
    const token = randomToken();
    for (let attempt = 0; attempt < 10; attempt++) {
      const top = highestPoint(await fs.readdir(dir));
      let lapsed = false;
      if (top > 0) {
        const verdict = await judge(fs, dir, top);
        if ("gone" in verdict) continue;
        if (verdict.held) throw lockedError(location, dir, top, verdict.info, me, verdict.why);
        lapsed = verdict.lapsed === true;
      }
      await refuseLegacyHolder(fs, dir, location);
      const n = top + 1;
      const info: HolderInfo = { ...me, since: Date.now(), token, lease: null };
      const made = await createPoint(fs, dir, n, info, leaseMs);
      if (made === null) continue;
      const lock = new FileLock(fs, dir, n, made.info, location, made.listener, made.pointId);
      try {
        // The other half of a lease handover: a holder that renewed after we judged it dead keeps the store.
        // (A closed socket or a released point cannot come back.)
        if (lapsed) {
          const again = await judge(fs, dir, top);
          if ("held" in again && again.held) throw lockedError(location, dir, top, again.info, me, again.why);
        }
        // Someone judged our point dead before it was complete: they hold the store, not we.
        const above = highestPoint(await fs.readdir(dir));
        if (above > n) {
          await lock.release();
          continue;
        }
        if (made.listener !== null) {
          await fs.createExclusive(`${dir}/${lockPointName(n)}.info`, encodeUtf8(`${JSON.stringify(made.info)}\n`));
        }
      } catch (error) {
        await lock.release().catch(() => undefined);
        throw error;
      }
      return lock;
    }
    throw new MoomemError("STORE_LOCKED", `the store at ${location} kept changing hands while opening (lock files ${dir}/LOCK.*); try again`);
  }

  /**
   * The open was accepted: removes older lock points and leftovers of lock
   * attempts, and writes the LOCK file an older moomem reads. Throws
   * `STORE_LOCKED` when the lock was lost meanwhile.
   */
  async settle(): Promise<void> {
    await this.ensureHeld();
    const fs = this.#fs;
    const names = (await fs.readdir(this.#dir)) ?? [];
    const now = Date.now();
    for (const name of names) {
      const point = /^LOCK\.(\d+)(?:\.info)?$/.exec(name);
      const temp = /^LOCK\.(?:(\d+)\.)?.*\.tmp$/.exec(name);
      if (point !== null) {
        if (Number(point[1]) < this.#number) await fs.unlink(`${this.#dir}/${name}`);
      } else if (temp !== null) {
        // Attempts at lower points lost (or died) for good; the legacy LOCK's temp is only ever ours; an attempt at
        // our own number may still be unwinding, so only an old one is removed.
        const n = temp[1] === undefined ? 0 : Number(temp[1]);
        const old = n >= this.#number && now - ((await fs.stat(`${this.#dir}/${name}`))?.mtimeMs ?? now) > STALE_TEMP_MS;
        if (n < this.#number || old) await fs.unlink(`${this.#dir}/${name}`);
      }
    }
    const start = await processStartToken(fs, fs.pid);
    await writeLegacyLock(fs, this.#dir, { pid: this.#info.pid, start, since: this.#info.since, token: this.#info.token, lock: this.#number });
    this.#settled = true;
  }

  /**
   * Resolves when this writer may write: at once for a socket lock; for a
   * lease, once it is fresh (renewed now if half of it has passed, as after
   * an event loop stall). Throws `STORE_LOCKED` once the lock was lost.
   */
  ensureHeld(): Promise<void> {
    if (this.#lost !== null) return Promise.reject(this.#lost);
    if (this.#released) return Promise.reject(new MoomemError("STORE_CLOSED", `the writer lock of ${this.#location} was released`));
    if (this.#info.lease === null || performance.now() - this.#confirmedAt < this.#info.lease / 2) return Promise.resolve();
    return this.#renew().then(() => {
      if (this.#lost !== null) throw this.#lost;
    });
  }

  /**
   * Before a step that cannot be taken back (committing a compaction): also
   * checks that our lock point is still in place (a socket lock can only be
   * lost by someone deleting or replacing its file).
   */
  async verify(): Promise<void> {
    await this.ensureHeld();
    const st = await this.#fs.stat(`${this.#dir}/${lockPointName(this.#number)}`);
    const above = highestPoint(await this.#fs.readdir(this.#dir));
    if (st === null || (this.#pointId !== null && st.id !== this.#pointId) || above > this.#number) {
      this.#lost ??= new MoomemError(
        "STORE_LOCKED",
        `the writer lock of ${this.#location} is gone: its file ${this.#dir}/${lockPointName(this.#number)} was removed or replaced while this store was open` +
          (above > this.#number ? `, and another writer took the store (${lockPointName(above)})` : "") +
          ". Nothing more is written through this store: close it and open it again.",
      );
      throw this.#lost;
    }
  }

  /** Renews a lease: move the point's time, then make sure no successor appeared (in this order: see acquire). */
  #renew(): Promise<void> {
    this.#renewing ??= (async () => {
      const started = performance.now();
      const path = `${this.#dir}/${lockPointName(this.#number)}`;
      try {
        await this.#fs.touch(path, Date.now());
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
      }
      const names = (await this.#fs.readdir(this.#dir)) ?? [];
      const above = highestPoint(names);
      if (above > this.#number || !names.includes(lockPointName(this.#number))) {
        const successor = above > this.#number ? parseHolderInfo(await readQuietly(this.#fs, `${this.#dir}/${lockPointName(above)}`)) : null;
        const stalled = ((started - this.#confirmedAt) / 1000).toFixed(1);
        this.#lost ??= new MoomemError(
          "STORE_LOCKED",
          `this store lost its writer lock on ${this.#location}: its lease (${this.#info.lease} ms) was not renewed for ${stalled} s ` +
            `(was the event loop blocked?), and ${successor === null ? "another writer" : describeHolder(successor, this.#info)} took the store over. ` +
            "Nothing was written after that; close this store and open it again once the other writer is done.",
        );
        return;
      }
      this.#confirmedAt = started;
    })().finally(() => {
      this.#renewing = null;
    });
    return this.#renewing;
  }

  /**
   * Gives the lock back. After {@link settle} the point is left as an empty
   * file (so its number is never reused); before it (a refused open) the point
   * and its details are removed, leaving the folder as the open found it.
   */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    const fs = this.#fs;
    const point = `${this.#dir}/${lockPointName(this.#number)}`;
    // The first error, boxed: a caught value may be anything, null included.
    let failure: { error: unknown } | null = null as { error: unknown } | null;
    const step = async (run: () => Promise<unknown>): Promise<void> => {
      try {
        await run();
      } catch (error) {
        failure ??= { error };
      }
    };
    if (this.#lost === null) {
      if (this.#settled) {
        await step(() => removeLegacyLock(fs, this.#dir, this.#info.token));
        // An empty file is a dead point: renaming it over ours releases the lock in one step.
        await step(async () => {
          const temp = `${point}.${this.#info.token}.tmp`;
          const file = await fs.open(temp, "create");
          await file.close();
          await fs.rename(temp, point);
        });
      } else {
        await step(() => fs.unlink(point));
      }
    }
    await step(() => fs.unlink(`${point}.info`));
    // Whatever failed above, the socket closes: from now on the point reads as dead.
    await this.#listener?.close();
    if (failure !== null) throw failure.error;
  }
}

function highestPoint(names: readonly string[] | null): number {
  let top = 0;
  for (const name of names ?? []) {
    const n = lockPointNumber(name);
    if (n !== null && n > top) top = n;
  }
  return top;
}

async function readQuietly(fs: FileSystem, path: string): Promise<Uint8Array | null> {
  try {
    return await fs.readFile(path);
  } catch (error) {
    // Only used to name a holder in a message.
    void error;
    return null;
  }
}

/** Whether lock point `n` is held. */
async function judge(fs: FileSystem, dir: string, n: number): Promise<Verdict> {
  const path = `${dir}/${lockPointName(n)}`;
  const st = await fs.stat(path);
  if (st === null) return { gone: true };
  if (st.kind === "socket") {
    const probe = await fs.probeSocket(path);
    if (probe === "missing") return { gone: true };
    if (probe === "dead") return { held: false };
    const info = parseHolderInfo(await readQuietly(fs, `${path}.info`));
    if (probe === "live") return { held: true, info };
    return { held: true, info, why: `moomem cannot tell whether it is still alive (connecting to ${path} failed: ${probe.unknown})` };
  }
  if (st.kind !== "file") {
    return { held: true, info: null, why: `${path} is not a file moomem made; if no moomem process uses this store, remove it` };
  }
  // A released point is an empty file; a leased point holds its holder's details and lives while renewed.
  if (st.size === 0) return { held: false };
  const info = parseHolderInfo(await fs.readFile(path));
  const lease = Math.min(MAX_LEASE_MS, Math.max(MIN_LEASE_MS, info?.lease ?? DEFAULT_LEASE_MS));
  const age = Date.now() - st.mtimeMs;
  if (age >= lease) return { held: false, lapsed: true };
  return {
    held: true,
    info,
    why: `its lease was renewed ${(Math.max(0, age) / 1000).toFixed(1)} s ago and lapses ${(lease / 1000).toFixed(1)} s after the last renewal, if its holder died`,
  };
}

/** Creates lock point `n` (a listening socket, else a leased file); null when another writer created `n` first. */
async function createPoint(
  fs: FileSystem,
  dir: string,
  n: number,
  info: HolderInfo,
  leaseMs: number,
): Promise<{ info: HolderInfo; listener: SocketListener | null; pointId: string | null } | null> {
  const point = `${dir}/${lockPointName(n)}`;
  const temp = `${point}.${info.token}.tmp`;
  const listener = await fs.listenSocket(temp);
  if (listener !== null) {
    let linked = false;
    try {
      // The socket is already listening when its name appears: no one can see point n dead while we create it.
      linked = await fs.link(temp, point);
      await fs.unlink(temp);
      if (!linked) {
        await listener.close();
        return null;
      }
      return { info, listener, pointId: (await fs.stat(point))?.id ?? null };
    } catch (error) {
      await quietly(() => fs.unlink(temp));
      if (linked) await quietly(() => fs.unlink(point));
      await listener.close();
      const code = errorCode(error);
      // The holder of a higher point cleaned our attempt away: we lost the race.
      if (!linked && code === "ENOENT") return null;
      // Sockets but no hard links (some FUSE and SMB mounts): a leased point, made without a link, instead.
      if (linked || code === undefined || !NO_LINKS.has(code)) throw error;
    }
  }
  const leased: HolderInfo = { ...info, lease: leaseMs };
  try {
    if (!(await fs.createExclusive(point, encodeUtf8(`${JSON.stringify(leased)}\n`)))) return null;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  try {
    return { info: leased, listener: null, pointId: (await fs.stat(point))?.id ?? null };
  } catch (error) {
    await quietly(() => fs.unlink(point));
    throw error;
  }
}

/** Runs a clean-up step whose failure must not hide the error being reported. */
async function quietly(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    // Best effort: a lock file left behind is dead (its socket closed, its lease not renewed) and cleaned by the next writer.
    void error;
  }
}

function lockedError(location: string, dir: string, n: number, info: HolderInfo | null, me: ProcessIdentity, why?: string): MoomemError {
  return new MoomemError(
    "STORE_LOCKED",
    `the store at ${location} is open for writing by ${describeHolder(info, me)} (lock ${dir}/${lockPointName(n)}${why === undefined ? "" : `; ${why}`}); ` +
      "close that writer, or open with { readOnly: true } to read while it runs",
  );
}
