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

/**
 * Everything the file backend asks of the system. Paths are strings joined
 * with `/`. Methods that look a file up return null / false when it does not
 * exist instead of throwing ENOENT.
 */
export interface FileSystem {
  /** Id of this process (written into the lock file). */
  readonly pid: number;
  /** Creates a directory and its parents; fine when it exists. */
  mkdirp(path: string): Promise<void>;
  /** Canonical absolute path of an existing directory (symlinks resolved). */
  realpath(path: string): Promise<string>;
  /** Names in a directory; null when it does not exist. */
  readdir(path: string): Promise<string[] | null>;
  /** Size of a file; null when it does not exist. */
  size(path: string): Promise<number | null>;
  /** A whole (small) file; null when it does not exist. */
  readFile(path: string): Promise<Uint8Array | null>;
  /**
   * A file's bytes as chunks the caller may keep, read lazily (large files are
   * never held whole). Throws ENOENT when the file does not exist.
   */
  readChunks(path: string): AsyncIterable<Uint8Array>;
  /** Opens a file for writing: `"create"` creates it or empties it, `"existing"` opens it as it is. */
  open(path: string, mode: "create" | "existing"): Promise<WritableFile>;
  /** Creates `path` holding `data` in one atomic step; false (and nothing changed) when it already exists. */
  createExclusive(path: string, data: Uint8Array): Promise<boolean>;
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
}

/** The error `code` of a failure thrown through the seam (`ENOSPC`, `EIO`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}
