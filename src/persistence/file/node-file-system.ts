// The FileSystem seam over node:fs (also what Bun and Deno run): the only file in moomem that touches the disk.

import { closeSync, constants as fsConstants, openSync, readSync, writeSync } from "node:fs";
import * as fsp from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { createServer, connect } from "node:net";
import { hostname } from "node:os";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { threadId } from "node:worker_threads";
import * as zlib from "node:zlib";
import { useNativeCrc32 } from "../crc32.ts";
import { errorCode, type FileStat, type FileSystem, type ProcessIdentity, type SocketListener, type SocketProbe, type WritableFile } from "./file-system.ts";

const CHUNK_SIZE = 256 * 1024;
/** Writes up to this size go straight to the kernel (see `write`); larger ones (snapshots) stay off the event loop. */
const SMALL_WRITE = 64 * 1024;
/** Reads up to this size in all (a user's section of a few hundred entries) go straight to the kernel too, see `readRanges`. */
const SMALL_READ = 64 * 1024;

// Codes meaning "this file system cannot make hard links": fall back to O_EXCL.
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EINVAL"]);
/** Store folders and files are private to the user who runs moomem (less what the umask removes). */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
// Codes meaning "no Unix socket can live here" (file system without socket files, path too long, sandbox): the lock uses a lease.
const NO_SOCKETS = new Set(["EPERM", "EACCES", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EINVAL", "ENAMETOOLONG", "EAFNOSUPPORT", "EROFS"]);
/** Longest socket path every platform takes (sun_path is 108 bytes on Linux, 104 on macOS, with its NUL). */
const MAX_SOCKET_PATH = 103;
/** A probe gets its answer from the kernel at once; this only guards against a file system that never answers. */
const PROBE_TIMEOUT_MS = 5_000;

/** `readRanges` without leaving the event loop, for small reads. */
function readRangesNow(path: string, ranges: readonly { start: number; length: number }[]): Uint8Array[] {
  const fd = openSync(path, "r");
  try {
    const out: Uint8Array[] = [];
    for (const { start, length } of ranges) {
      const buffer = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const bytesRead = readSync(fd, buffer, done, length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      out.push(done === length ? buffer : buffer.subarray(0, done));
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

class NodeWritableFile implements WritableFile {
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  async write(data: Uint8Array, position: number): Promise<void> {
    let done = 0;
    if (data.length <= SMALL_WRITE) {
      // A journal append of a few KiB lands in the page cache in microseconds; the promise API would
      // first hop to libuv's thread pool and back, which costs more than the write (add latency).
      const fd = this.#handle.fd;
      while (done < data.length) {
        const written = writeSync(fd, data, done, data.length - done, position + done);
        if (written <= 0) throw Object.assign(new Error("write made no progress"), { code: "EIO" });
        done += written;
      }
      return;
    }
    while (done < data.length) {
      const { bytesWritten } = await this.#handle.write(data, done, data.length - done, position + done);
      if (bytesWritten <= 0) throw Object.assign(new Error("write made no progress"), { code: "EIO" });
      done += bytesWritten;
    }
  }

  datasync(): Promise<void> {
    return this.#handle.datasync();
  }

  truncate(length: number): Promise<void> {
    return this.#handle.truncate(length);
  }

  close(): Promise<void> {
    return this.#handle.close();
  }
}

// zlib's CRC-32 (Node 20.15 and later; Bun and Deno may lack it): checking a 100,000-entry user's section costs
// a few milliseconds instead of a hundred (docs/design.md, "Load path"). Where it is missing, the table loop stays.
const zlibCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
if (typeof zlibCrc32 === "function") useNativeCrc32((bytes, crc) => zlibCrc32(bytes, crc) >>> 0);

/**
 * {@link FileSystem} on `node:fs`. Durability notes: `datasync` is
 * fdatasync(2) (on macOS that is fsync without F_FULLFSYNC, so a power loss may
 * still lose the drive's cache); directories are fsynced on POSIX and not on
 * Windows, where a directory cannot be opened for fsync.
 *
 * @example
 * ```ts
 * const backend = new FileBackend("./memory", { fs: new NodeFileSystem() });
 * ```
 */
export class NodeFileSystem implements FileSystem {
  get pid(): number {
    return process.pid;
  }

  async mkdirp(path: string): Promise<string[]> {
    // Not fs.mkdir's recursive mode: on procfs it retries forever (mkdir there says ENOENT, as for a missing
    // parent). Walk up to the first folder that exists instead, then create each missing one.
    const missing: string[] = [];
    for (let at = path; ;) {
      const st = await this.stat(at);
      if (st !== null) {
        if (st.kind !== "directory") throw Object.assign(new Error(`${at} is a file, not a folder`), { code: "ENOTDIR", path: at });
        break;
      }
      missing.push(at);
      const parent = dirname(at);
      if (parent === at) break;
      at = parent;
    }
    const created: string[] = [];
    for (const dir of missing.reverse()) {
      try {
        await fsp.mkdir(dir, { mode: DIR_MODE });
        created.push(dir);
      } catch (error) {
        const code = errorCode(error);
        if (code === "EEXIST" && (await this.stat(dir))?.kind === "directory") continue;
        if (code === "ENOENT") {
          // The parent exists (it was checked or just made): this file system does not let folders be made here.
          throw Object.assign(
            new Error(`cannot create the folder ${dir}: the file system of ${dirname(dir)} does not allow it (a virtual one such as /proc or /sys?)`),
            {
              code: "ENOENT",
              cause: error,
            },
          );
        }
        throw error;
      }
    }
    return created;
  }

  async readdir(path: string): Promise<string[] | null> {
    try {
      return await fsp.readdir(path);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  async size(path: string): Promise<number | null> {
    try {
      return (await fsp.stat(path)).size;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  async stat(path: string): Promise<FileStat | null> {
    let st;
    try {
      st = await fsp.stat(path, { bigint: true });
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
    const kind = st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSocket() ? "socket" : "other";
    return { kind, size: Number(st.size), mtimeMs: Number(st.mtimeNs / 1_000_000n), id: `${st.dev}:${st.ino}` };
  }

  async readRanges(path: string, ranges: readonly { start: number; length: number }[]): Promise<Uint8Array[]> {
    let total = 0;
    for (const { length } of ranges) total += length;
    // Loading a small user is a read of a few KiB: through the thread pool, the open, read and close each wait for a
    // turn (about 1.5 ms per user on a busy machine, most of the time of touching 1,000 users); the kernel answers
    // them in microseconds from the page cache. Larger reads stay off the event loop.
    if (total <= SMALL_READ) return readRangesNow(path, ranges);
    const handle = await fsp.open(path, "r");
    try {
      const out: Uint8Array[] = [];
      for (const { start, length } of ranges) {
        const buffer = new Uint8Array(length);
        let done = 0;
        while (done < length) {
          const { bytesRead } = await handle.read(buffer, done, length - done, start + done);
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        out.push(done === length ? buffer : buffer.subarray(0, done));
      }
      return out;
    } finally {
      await handle.close();
    }
  }

  async readFile(path: string): Promise<Uint8Array | null> {
    try {
      return await fsp.readFile(path);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  async *readChunks(path: string, from = 0): AsyncGenerator<Uint8Array, void, undefined> {
    const handle = await fsp.open(path, "r");
    try {
      for (let position = from; ;) {
        // A fresh buffer per chunk: the line splitter keeps slices of it.
        const buffer = new Uint8Array(CHUNK_SIZE);
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_SIZE, position);
        if (bytesRead === 0) return;
        position += bytesRead;
        yield bytesRead === CHUNK_SIZE ? buffer : buffer.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
  }

  async open(path: string, mode: "create" | "existing"): Promise<WritableFile> {
    return new NodeWritableFile(await fsp.open(path, mode === "create" ? "w" : "r+", FILE_MODE));
  }

  async createExclusive(path: string, data: Uint8Array): Promise<boolean> {
    // Write the content under a private name, then hard-link it into place: the
    // link appears with its content complete, or not at all (EEXIST).
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    await fsp.writeFile(temp, data, { flag: "wx", mode: FILE_MODE });
    try {
      await fsp.link(temp, path);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === "EEXIST") return false;
      if (code === undefined || !NO_LINKS.has(code)) throw error;
      return await this.#createWithExcl(path, data);
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }

  async #createWithExcl(path: string, data: Uint8Array): Promise<boolean> {
    let handle: FileHandle;
    try {
      handle = await fsp.open(path, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, FILE_MODE);
    } catch (error) {
      if (errorCode(error) === "EEXIST") return false;
      throw error;
    }
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    return true;
  }

  async link(from: string, to: string): Promise<boolean> {
    try {
      await fsp.link(from, to);
      return true;
    } catch (error) {
      if (errorCode(error) === "EEXIST") return false;
      throw error;
    }
  }

  touch(path: string, ms: number): Promise<void> {
    const time = new Date(ms);
    return fsp.utimes(path, time, time);
  }

  rename(from: string, to: string): Promise<void> {
    return fsp.rename(from, to);
  }

  async unlink(path: string): Promise<boolean> {
    try {
      await fsp.unlink(path);
      return true;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return false;
      throw error;
    }
  }

  async syncDir(path: string): Promise<void> {
    if (process.platform === "win32") return;
    const handle = await fsp.open(path, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  processAlive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: it exists but is someone else's; anything but ESRCH is treated as alive, to be safe.
      return errorCode(error) !== "ESRCH";
    }
  }

  async listenSocket(path: string): Promise<SocketListener | null> {
    // libuv takes a path on Windows for a named pipe, not a file: the lock uses its lease there.
    if (process.platform === "win32") return null;
    const address = await shortSocketPath(path);
    if (address === null) return null;
    const server = createServer((socket) => {
      // A probe hangs up at once; nothing is ever read or written.
      socket.on("error", () => undefined);
      socket.destroy();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(address.path, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      await address.done();
      if (NO_SOCKETS.has(errorCode(error) ?? "") || isPermissionDenied(error)) return null;
      throw error;
    }
    // A failed accept (EMFILE while probes connect) must not become an uncaught 'error' that kills the host:
    // the listening socket stays open, and the lock with it.
    server.on("error", () => undefined);
    server.unref();
    try {
      await fsp.chmod(path, FILE_MODE);
    } catch (error) {
      // Connecting needs write permission on the socket; the folder (0700) already keeps others out.
      void error;
    }
    return {
      close: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await address.done();
      },
    };
  }

  async probeSocket(path: string): Promise<SocketProbe> {
    const address = await shortSocketPath(path);
    if (address === null) return { unknown: `the path is longer than ${MAX_SOCKET_PATH} bytes and /proc/self/fd is not available` };
    try {
      return await new Promise<SocketProbe>((resolve) => {
        const socket = connect(address.path);
        const timer = setTimeout(() => {
          socket.destroy();
          resolve({ unknown: `no answer within ${PROBE_TIMEOUT_MS} ms` });
        }, PROBE_TIMEOUT_MS);
        socket.once("connect", () => {
          clearTimeout(timer);
          socket.destroy();
          resolve("live");
        });
        socket.once("error", (error) => {
          clearTimeout(timer);
          socket.destroy();
          const code = errorCode(error);
          // Refused: nobody listens (its process is gone, or the file is not a socket). A full backlog means a live listener.
          if (code === "ECONNREFUSED" || code === "ENOTSOCK") resolve("dead");
          else if (code === "ENOENT") resolve("missing");
          else if (code === "EAGAIN" || code === "EWOULDBLOCK") resolve("live");
          else resolve({ unknown: code ?? (error instanceof Error ? error.message : String(error)) });
        });
      });
    } finally {
      await address.done();
    }
  }

  async identity(): Promise<ProcessIdentity> {
    // A thread's identity never changes: read it once (every writable open asks).
    identityOfThisThread ??= (async () => {
      let pidNamespace: string | null = null;
      if (process.platform === "linux") {
        try {
          pidNamespace = await fsp.readlink("/proc/self/ns/pid");
        } catch (error) {
          // No /proc (or a Deno run without read access to it): holders are then compared by host and pid.
          void error;
        }
      }
      return { pid: process.pid, thread: threadId, pidNamespace, host: hostname() };
    })();
    return { ...(await identityOfThisThread) };
  }
}

/** The path of a file: URL (percent-decoding and Windows drive letters as the platform does); throws when it is not one. */
export function pathFromFileUrl(url: string): string {
  return fileURLToPath(url);
}

let identityOfThisThread: Promise<ProcessIdentity> | null = null;

/** Deno refuses an operation it was not granted with an error that has no errno code. */
function isPermissionDenied(error: unknown): boolean {
  const name = error instanceof Error ? error.name : "";
  return name === "NotCapable" || name === "PermissionDenied";
}

/**
 * A path to bind or connect a socket at `path`: the path itself when short
 * enough; on Linux, a longer one through an open descriptor of its folder
 * (`/proc/self/fd/<fd>/<name>`), kept open until `done`. Null when neither fits.
 */
async function shortSocketPath(path: string): Promise<{ path: string; done: () => Promise<void> } | null> {
  const none = (): Promise<void> => Promise.resolve();
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return { path, done: none };
  if (process.platform !== "linux") return null;
  let folder: FileHandle;
  try {
    folder = await fsp.open(dirname(path), "r");
  } catch (error) {
    void error;
    return null;
  }
  const short = `/proc/self/fd/${folder.fd}/${basename(path)}`;
  if (Buffer.byteLength(short) > MAX_SOCKET_PATH) {
    await folder.close();
    return null;
  }
  return { path: short, done: () => folder.close() };
}
