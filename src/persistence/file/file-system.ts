// The one seam between the file backend and the operating system, so tests can inject ENOSPC, EIO and crashes between any two steps.

/**
 * A file opened for writing. Errors are thrown as the platform reports them
 * (Node-style errors with a `code` such as `ENOSPC`).
 */
export interface WritableFile {
  /** Writes all of `data` at byte offset `position` (retrying short writes). */
  write(data: Uint8Array, position: number): Promise<void>;
  /** fdatasync: the data written so far survives a power loss once this resolves. */
  datasync(): Promise<void>;
  /** Cuts (or extends) the file to `length` bytes. */
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/** What `stat` reports about a path (symlinks followed). */
export interface FileStat {
  kind: "file" | "directory" | "socket" | "other";
  size: number;
  /** Last modification, ms since epoch (the lock's lease is renewed by moving it). */
  mtimeMs: number;
  /** Identity of the file itself (device and inode): changes when a rename replaces the name. */
  id: string;
}

/** A listening Unix socket: the kernel closes it when its thread or process ends, however it ends. */
export interface SocketListener {
  close(): Promise<void>;
}

/**
 * What connecting to a socket file found: a listener (`live`), a file nobody
 * listens on (`dead`: its process is gone, or it is not a socket), no file
 * (`missing`), or no answer either way (`unknown`, with the reason).
 */
export type SocketProbe = "live" | "dead" | "missing" | { unknown: string };

/** Who is asking: written next to the writer lock so a refused opener can be told who holds it. */
export interface ProcessIdentity {
  pid: number;
  /** Worker thread id (0 for the main thread). */
  thread: number;
  /** The pid namespace (`pid:[4026531836]` on Linux), null where there is none or it cannot be read. */
  pidNamespace: string | null;
  host: string;
}

/**
 * Everything the file backend asks of the system. Paths are strings joined
 * with `/`. Methods that look a file up return null / false when it does not
 * exist instead of throwing ENOENT.
 */
export interface FileSystem {
  /** Id of this process (written into the lock file). */
  readonly pid: number;
  /**
   * Creates a directory and its missing parents, each private to the user
   * (mode 0700, less the umask); fine when it exists. Returns the directories
   * it created, outermost first, so the caller can make them durable.
   */
  mkdirp(path: string): Promise<string[]>;
  /** Names in a directory; null when it does not exist. */
  readdir(path: string): Promise<string[] | null>;
  /** Size of a file; null when it does not exist. */
  size(path: string): Promise<number | null>;
  /** Kind, size, modification time and identity of a path; null when it does not exist. */
  stat(path: string): Promise<FileStat | null>;
  /** A whole (small) file; null when it does not exist. */
  readFile(path: string): Promise<Uint8Array | null>;
  /**
   * A file's bytes from byte offset `from` (default 0) as chunks the caller
   * may keep, read lazily (large files are never held whole). Throws ENOENT
   * when the file does not exist.
   */
  readChunks(path: string, from?: number): AsyncIterable<Uint8Array>;
  /**
   * Optional: the bytes at each of these ranges of one file, read through one open handle (loading one
   * user reads its lines where the snapshot holds them). Without it, each range is read with `readChunks`.
   */
  readRanges?(path: string, ranges: readonly { start: number; length: number }[]): Promise<Uint8Array[]>;
  /**
   * Opens a file for writing: `"create"` creates it (mode 0600, private to
   * the user) or empties it, `"existing"` opens it as it is.
   */
  open(path: string, mode: "create" | "existing"): Promise<WritableFile>;
  /** Creates `path` (mode 0600) holding `data` in one atomic step; false (and nothing changed) when it already exists. */
  createExclusive(path: string, data: Uint8Array): Promise<boolean>;
  /** Gives the file at `from` a second name `to`; false (and nothing changed) when `to` exists. */
  link(from: string, to: string): Promise<boolean>;
  /** Sets a file's modification time (ms since epoch). Throws ENOENT when it does not exist. */
  touch(path: string, ms: number): Promise<void>;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; false when it did not exist. */
  unlink(path: string): Promise<boolean>;
  /** fsync of a directory, so created, renamed and removed names survive a power loss. */
  syncDir(path: string): Promise<void>;
  /**
   * Whether a process with this id exists (signal 0). A process that exists
   * but belongs to another user counts as alive.
   */
  processAlive(pid: number): boolean;
  /**
   * Listens on a new Unix socket at `path` (mode 0600) until closed, without
   * keeping the process alive. Null where this runtime or file system cannot
   * hold a socket there (Windows, some network and FUSE file systems): the
   * writer lock then falls back to a lease (see file-lock.ts).
   */
  listenSocket(path: string): Promise<SocketListener | null>;
  /** Connects to the socket at `path` and hangs up at once. */
  probeSocket(path: string): Promise<SocketProbe>;
  /** This process and thread, as a lock holder is described to others. */
  identity(): Promise<ProcessIdentity>;
}

/** The error `code` of a failure thrown through the seam (`ENOSPC`, `EIO`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = error.code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** `length` bytes of a file from `from`, read through `readChunks`; fewer when the file ends first. */
export async function readRange(fs: FileSystem, path: string, from: number, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let filled = 0;
  for await (const chunk of fs.readChunks(path, from)) {
    const take = Math.min(chunk.length, length - filled);
    out.set(chunk.subarray(0, take), filled);
    filled += take;
    if (filled === length) break;
  }
  return out.subarray(0, filled);
}
