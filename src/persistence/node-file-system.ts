// The FileSystem seam over node:fs (also what Bun and Deno run): the only file in moomem that touches the disk.

import { constants as fsConstants, writeSync } from "node:fs";
import * as fsp from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { errorCode, type FileSystem, type WritableFile } from "./file-system.ts";

const CHUNK_SIZE = 256 * 1024;
/** Writes up to this size go straight to the kernel (see `write`); larger ones (snapshots) stay off the event loop. */
const SMALL_WRITE = 64 * 1024;

// Codes meaning "this file system cannot make hard links": fall back to O_EXCL.
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EINVAL"]);

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

  async mkdirp(path: string): Promise<void> {
    await fsp.mkdir(path, { recursive: true });
  }

  realpath(path: string): Promise<string> {
    return fsp.realpath(path);
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

  async readFile(path: string): Promise<Uint8Array | null> {
    try {
      return await fsp.readFile(path);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw error;
    }
  }

  async *readChunks(path: string): AsyncGenerator<Uint8Array, void, undefined> {
    const handle = await fsp.open(path, "r");
    try {
      for (;;) {
        // A fresh buffer per chunk: the line splitter keeps slices of it.
        const buffer = new Uint8Array(CHUNK_SIZE);
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_SIZE, null);
        if (bytesRead === 0) return;
        yield bytesRead === CHUNK_SIZE ? buffer : buffer.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
  }

  async open(path: string, mode: "create" | "existing"): Promise<WritableFile> {
    return new NodeWritableFile(await fsp.open(path, mode === "create" ? "w" : "r+"));
  }

  async createExclusive(path: string, data: Uint8Array): Promise<boolean> {
    // Write the content under a private name, then hard-link it into place: the
    // link appears with its content complete, or not at all (EEXIST).
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    await fsp.writeFile(temp, data, { flag: "wx" });
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
      handle = await fsp.open(path, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY);
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
}
