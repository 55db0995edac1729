// The LOCK file moomem 0.1 used as its only writer lock: read so a 0.1 writer is respected, written so 0.1 respects us.

import { MoomemError } from "../../errors.ts";
import { errorCode, type FileSystem } from "./file-system.ts";
import { decodeUtf8, encodeUtf8 } from "../line-reader.ts";

/** What a LOCK file says about its holder (moomem 0.1's fields; this version adds `lock`, the number of its lock point). */
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
  /** Number of the lock point (`LOCK.<n>`) of the writer that wrote this file; absent in files written by moomem 0.1. */
  lock?: number;
}

/** Parses a LOCK file; null when it cannot be read (it is only ever created whole, so that means leftover damage). */
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
  const { pid, start, since, token, lock } = value as Record<string, unknown>;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return null;
  if (start !== null && typeof start !== "string") return null;
  if (typeof since !== "number" || typeof token !== "string") return null;
  const info: LockInfo = { pid, start, since, token };
  if (typeof lock === "number" && Number.isSafeInteger(lock) && lock > 0) info.lock = lock;
  return info;
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
  // Our own never changes (the legacy LOCK is written at every writable open): read it once.
  if (pid === fs.pid && ownStart?.pid === pid) return ownStart.token;
  const token = await readStartToken(fs, pid);
  if (pid === fs.pid) ownStart = { pid, token };
  return token;
}

let ownStart: { pid: number; token: string | null } | null = null;

async function readStartToken(fs: FileSystem, pid: number): Promise<string | null> {
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
 * Whether a LOCK written by moomem 0.1 names a live holder, judged as 0.1
 * judged it: the pid exists, is not a zombie, and (on Linux) started when the
 * file says. Only meaningful within one pid namespace, which is why this
 * version does not rely on it for its own lock (see file-lock.ts).
 */
async function legacyHolderLives(fs: FileSystem, holder: LockInfo): Promise<boolean> {
  // Our own pid: a 0.1 store of this process would have refused us already, so it is an older process's leftover.
  if (holder.pid === fs.pid) return false;
  if (!fs.processAlive(holder.pid)) return false;
  // A killed holder whose parent has not reaped it yet still answers signal 0, as a zombie.
  const stat = await readProcStat(fs, holder.pid);
  if (stat !== null && (stat.state === "Z" || stat.state === "X")) return false;
  if (holder.start !== null) {
    const current = await processStartToken(fs, holder.pid);
    if (current !== null && current !== holder.start) return false;
  }
  return true;
}

/**
 * Refuses to go on while a moomem 0.1 writer holds the store (its LOCK file has
 * no `lock` field and names a live process of this pid namespace).
 */
export async function refuseLegacyHolder(fs: FileSystem, dir: string, location: string): Promise<void> {
  const bytes = await fs.readFile(`${dir}/LOCK`);
  if (bytes === null) return;
  const holder = parseLockInfo(bytes);
  if (holder === null || holder.lock !== undefined) return;
  if (!(await legacyHolderLives(fs, holder))) return;
  throw new MoomemError(
    "STORE_LOCKED",
    `the store at ${location} is open for writing by pid ${holder.pid} since ${new Date(holder.since).toISOString()}, an older moomem (its lock file ${dir}/LOCK); ` +
      "close that process, or open with { readOnly: true } to read while it runs",
  );
}

/** Writes LOCK in the shape moomem 0.1 reads, so a 0.1 process of this pid namespace refuses to write while we do. */
export async function writeLegacyLock(fs: FileSystem, dir: string, info: LockInfo): Promise<void> {
  const temp = `${dir}/LOCK.${info.token}.tmp`;
  const file = await fs.open(temp, "create");
  try {
    await file.write(encodeUtf8(`${JSON.stringify(info)}\n`), 0);
  } finally {
    await file.close();
  }
  await fs.rename(temp, `${dir}/LOCK`);
}

/** Removes LOCK if this writer wrote it (a 0.1 writer that came after us owns it otherwise). */
export async function removeLegacyLock(fs: FileSystem, dir: string, token: string): Promise<void> {
  const bytes = await fs.readFile(`${dir}/LOCK`);
  if (bytes !== null && parseLockInfo(bytes)?.token === token) await fs.unlink(`${dir}/LOCK`);
}
