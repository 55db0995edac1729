// The writer lock of a file store: a LOCK file naming pid + process start, checked for liveness, plus a per-process registry.

import { MoomemError } from "../errors.ts";
import { errorCode, type FileSystem } from "./file-system.ts";
import { decodeUtf8, encodeUtf8 } from "./line-reader.ts";

/** What the LOCK file says about its holder. */
export interface LockInfo {
  pid: number;
  /**
   * `<boot id>:<start time in clock ticks>` of the holder (Linux, from /proc),
   * so a pid reused by an unrelated process after the holder died is not
   * mistaken for the holder; null where /proc is not available.
   */
  start: string | null;
  /** ms since epoch the lock was taken. */
  since: number;
  /** Random, so a holder can tell its own lock file from a successor's. */
  token: string;
}

// Directories this process holds, shared by every copy of this module (a bundle may hold two).
const REGISTRY_KEY = Symbol.for("moomem.file-backend.locked-directories");
const registry: Set<string> = ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] as Set<string> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[REGISTRY_KEY] = new Set<string>()) as Set<string>;

function randomToken(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Parses the LOCK file; null when it cannot be read (a lock file is only ever created whole, so that means leftover damage). */
export function parseLockInfo(bytes: Uint8Array): LockInfo | null {
  const text = decodeUtf8(bytes);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const o = value as Record<string, unknown>;
  const { pid, start, since, token } = o;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return null;
  if (start !== null && typeof start !== "string") return null;
  if (typeof since !== "number" || typeof token !== "string") return null;
  return { pid, start, since, token };
}

/** State letter and start time (clock ticks since boot) of a process, from /proc/<pid>/stat; null without /proc. */
async function readProcStat(fs: FileSystem, pid: number): Promise<{ state: string; startTime: string } | null> {
  let stat: Uint8Array | null;
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`);
  } catch (error) {
    // No /proc (macOS, Windows, hidepid, a Deno run without --allow-read=/proc): fall back to pid-only liveness.
    if (procUnreadable(error)) return null;
    throw error;
  }
  const text = stat === null ? null : decodeUtf8(stat);
  if (text === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces or ')'.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return null;
  return { state, startTime };
}

/** An errno failure, or Deno's permission refusal (it carries no errno code). */
function procUnreadable(error: unknown): boolean {
  if (errorCode(error) !== undefined) return true;
  const name = error instanceof Error ? error.name : "";
  return name === "NotCapable" || name === "PermissionDenied";
}

/**
 * The start identity of a process on Linux: boot id plus field 22 of
 * /proc/<pid>/stat (start time since boot). Null elsewhere or when unreadable;
 * the lock then relies on the pid alone.
 */
export async function processStartToken(fs: FileSystem, pid: number): Promise<string | null> {
  const stat = await readProcStat(fs, pid);
  if (stat === null) return null;
  let boot: Uint8Array | null;
  try {
    boot = await fs.readFile("/proc/sys/kernel/random/boot_id");
  } catch (error) {
    if (procUnreadable(error)) return null;
    throw error;
  }
  if (boot === null) return null;
  return `${(decodeUtf8(boot) ?? "").trim()}:${stat.startTime}`;
}

/**
 * The writer lock on one store directory. `acquire` throws `STORE_LOCKED`
 * naming the holder; a holder that died (even by SIGKILL) never blocks:
 * its LOCK file is recognised as stale (pid gone, or pid reused by a process
 * with another start time) and taken over at once.
 *
 * A second writable open in the same process is refused through a
 * process-wide registry, because the pid check cannot tell two stores of one
 * process apart.
 *
 * Limits: liveness is judged on this machine (a store on a network share
 * used from two hosts is not protected); if three processes race to take over
 * the same stale lock at the same instant, the loser of the put-back step may
 * believe it holds the lock too.
 */
export class FileLock {
  readonly #fs: FileSystem;
  readonly #path: string;
  readonly #key: string;
  readonly #token: string;
  #held = true;

  private constructor(fs: FileSystem, path: string, key: string, token: string) {
    this.#fs = fs;
    this.#path = path;
    this.#key = key;
    this.#token = token;
  }

  /**
   * Takes the lock of `dir` (whose canonical path is `key`).
   *
   * @param location how the store is named in messages
   */
  static async acquire(fs: FileSystem, dir: string, key: string, now: number, location: string): Promise<FileLock> {
    const path = `${dir}/LOCK`;
    if (registry.has(key)) {
      throw new MoomemError(
        "STORE_LOCKED",
        `the store at ${location} is already open for writing in this process (pid ${fs.pid}); close the other store first, or open with { readOnly: true }`,
      );
    }
    // Claimed before the first await, so two concurrent opens in this process cannot both pass.
    registry.add(key);
    try {
      const start = await processStartToken(fs, fs.pid);
      const token = randomToken();
      const info: LockInfo = { pid: fs.pid, start, since: now, token };
      const content = encodeUtf8(`${JSON.stringify(info)}\n`);
      for (let attempt = 0; attempt < 5; attempt++) {
        if (await fs.createExclusive(path, content)) return new FileLock(fs, path, key, token);
        const existing = await fs.readFile(path);
        if (existing === null) continue;
        const holder = parseLockInfo(existing);
        if (holder !== null && (await isLive(fs, holder, start))) {
          throw new MoomemError(
            "STORE_LOCKED",
            `the store at ${location} is held by pid ${holder.pid} since ${new Date(holder.since).toISOString()} (lock file ${path}); ` +
              "close that process, or open with { readOnly: true } to read while it runs",
          );
        }
        await takeOver(fs, path, existing, token);
      }
      throw new MoomemError("STORE_LOCKED", `the store at ${location} kept changing hands while opening (lock file ${path}); try again`);
    } catch (error) {
      registry.delete(key);
      throw error;
    }
  }

  /**
   * Removes the LOCK file if it is still ours and frees the directory for this
   * process. The registry entry is freed even when the file cannot be removed
   * (a leftover LOCK naming this live process is then recognised as stale).
   */
  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    try {
      const current = await this.#fs.readFile(this.#path);
      if (current !== null && parseLockInfo(current)?.token === this.#token) await this.#fs.unlink(this.#path);
    } finally {
      registry.delete(this.#key);
    }
  }
}

async function isLive(fs: FileSystem, holder: LockInfo, ownStart: string | null): Promise<boolean> {
  if (holder.pid === fs.pid) {
    // Our own pid: either a store of this process that closed without removing
    // LOCK (the registry said no one here holds it), or an older process that
    // had our pid (container restarts make that common). Neither is alive.
    return false;
  }
  if (!fs.processAlive(holder.pid)) return false;
  // A killed holder whose parent has not reaped it yet still answers signal 0, as a zombie.
  const stat = await readProcStat(fs, holder.pid);
  if (stat !== null && (stat.state === "Z" || stat.state === "X")) return false;
  if (holder.start !== null && ownStart !== null) {
    const current = await processStartToken(fs, holder.pid);
    if (current !== null && current !== holder.start) return false;
  }
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Moves a stale LOCK aside; puts it back if, in the meantime, it had become someone else's live lock. */
async function takeOver(fs: FileSystem, path: string, stale: Uint8Array, token: string): Promise<void> {
  const aside = `${path}.stale-${token}.tmp`;
  try {
    await fs.rename(path, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  const moved = await fs.readFile(aside);
  if (moved !== null && !sameBytes(moved, stale)) {
    await fs.rename(aside, path);
    return;
  }
  await fs.unlink(aside);
}
