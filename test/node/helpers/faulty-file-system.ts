// A FileSystem seam that fails (ENOSPC, EIO) or "crashes" at a chosen step, for the file backend's fault tests.

import type { FileStat, FileSystem, ProcessIdentity, SocketListener, SocketProbe, WritableFile } from "../../../src/persistence/file/file-system.ts";

/** Thrown once the simulated process has crashed; carries no errno code on purpose. */
export class SimulatedCrash extends Error {
  constructor(step: number, what: string) {
    super(`simulated crash at step ${step} (${what})`);
    this.name = "SimulatedCrash";
  }
}

/**
 * What goes wrong, at which step (1-based count of seam calls):
 * - `fail`: that one call throws an error with `code` (after writing half of
 *   the data when `tear` is set and the call is a write); later calls work;
 * - `crash`: that call and every later one throw {@link SimulatedCrash}, leaving
 *   files as they are: `before` the call takes effect, `after` it did, or
 *   `torn` (writes: half of the data reached the file).
 */
export type FaultPlan =
  { kind: "none" } | { kind: "fail"; at: number; code: string; tear?: boolean } | { kind: "crash"; at: number; when: "before" | "after" | "torn" };

function errnoError(code: string, what: string): Error {
  return Object.assign(new Error(`${code}: injected failure in ${what}`), { code });
}

/** Wraps a real seam and counts every call through it. */
export class FaultyFileSystem implements FileSystem {
  readonly #inner: FileSystem;
  readonly #plan: FaultPlan;
  #count = 0;
  #crashed = false;
  /** Every call made, in order, e.g. `"datasync journal.1.jsonl"`. */
  readonly log: string[] = [];
  /** True once the planned fault or crash has happened. */
  fired = false;

  constructor(inner: FileSystem, plan: FaultPlan = { kind: "none" }) {
    this.#inner = inner;
    this.#plan = plan;
  }

  #armed: { match: RegExp; code: string } | null = null;

  /** Makes the next call whose description matches `match` fail once with `code` (independent of the plan). */
  armFailure(match: RegExp, code: string): void {
    this.#armed = { match, code };
  }

  get steps(): number {
    return this.#count;
  }

  get crashed(): boolean {
    return this.#crashed;
  }

  get pid(): number {
    return this.#inner.pid;
  }

  /**
   * Runs one step. `act` performs it; `tear` performs half of it (writes only).
   */
  async #step<T>(what: string, act: () => Promise<T>, tear?: () => Promise<unknown>): Promise<T> {
    const step = ++this.#count;
    this.log.push(what);
    if (this.#crashed) throw new SimulatedCrash(step, what);
    if (this.#armed !== null && this.#armed.match.test(what)) {
      const { code } = this.#armed;
      this.#armed = null;
      this.fired = true;
      throw errnoError(code, what);
    }
    const plan = this.#plan;
    if (plan.kind === "none" || plan.at !== step) return act();
    this.fired = true;
    if (plan.kind === "fail") {
      if (plan.tear === true && tear !== undefined) await tear();
      throw errnoError(plan.code, what);
    }
    this.#crashed = true;
    if (plan.when === "after") await act();
    else if (plan.when === "torn" && tear !== undefined) await tear();
    throw new SimulatedCrash(step, what);
  }

  mkdirp(path: string): Promise<string[]> {
    return this.#step(`mkdirp ${base(path)}`, () => this.#inner.mkdirp(path));
  }

  readdir(path: string): Promise<string[] | null> {
    return this.#step(`readdir ${base(path)}`, () => this.#inner.readdir(path));
  }

  size(path: string): Promise<number | null> {
    return this.#step(`size ${base(path)}`, () => this.#inner.size(path));
  }

  stat(path: string): Promise<FileStat | null> {
    return this.#step(`stat ${base(path)}`, () => this.#inner.stat(path));
  }

  readFile(path: string): Promise<Uint8Array | null> {
    return this.#step(`readFile ${base(path)}`, () => this.#inner.readFile(path));
  }

  async *readChunks(path: string, from?: number): AsyncGenerator<Uint8Array, void, undefined> {
    const chunks = await this.#step(`readChunks ${base(path)}`, () => Promise.resolve(this.#inner.readChunks(path, from)));
    for await (const chunk of chunks) {
      if (this.#crashed) throw new SimulatedCrash(this.#count, `reading ${base(path)}`);
      yield chunk;
    }
  }

  async open(path: string, mode: "create" | "existing"): Promise<WritableFile> {
    let opened: WritableFile | null = null;
    try {
      const file = await this.#step(`open(${mode}) ${base(path)}`, async () => (opened = await this.#inner.open(path, mode)));
      return new FaultyWritableFile(this, file, base(path));
    } catch (error) {
      // Crashed right after opening: the kernel would close the descriptor of a dead process.
      if (opened !== null) await (opened as WritableFile).close();
      throw error;
    }
  }

  createExclusive(path: string, data: Uint8Array): Promise<boolean> {
    return this.#step(`createExclusive ${base(path)}`, () => this.#inner.createExclusive(path, data));
  }

  rename(from: string, to: string): Promise<void> {
    return this.#step(`rename ${base(from)} -> ${base(to)}`, () => this.#inner.rename(from, to));
  }

  unlink(path: string): Promise<boolean> {
    return this.#step(`unlink ${base(path)}`, () => this.#inner.unlink(path));
  }

  syncDir(path: string): Promise<void> {
    return this.#step(`syncDir ${base(path)}`, () => this.#inner.syncDir(path));
  }

  processAlive(pid: number): boolean {
    return this.#inner.processAlive(pid);
  }

  // The lock's own operations pass straight through: the lock is tested with real processes (file-lock*.test.ts).
  link(from: string, to: string): Promise<boolean> {
    return this.#inner.link(from, to);
  }

  touch(path: string, ms: number): Promise<void> {
    return this.#inner.touch(path, ms);
  }

  listenSocket(path: string): Promise<SocketListener | null> {
    return this.#inner.listenSocket(path);
  }

  probeSocket(path: string): Promise<SocketProbe> {
    return this.#inner.probeSocket(path);
  }

  identity(): Promise<ProcessIdentity> {
    return this.#inner.identity();
  }

  /** Used by the wrapped files. */
  fileStep<T>(what: string, act: () => Promise<T>, tear?: () => Promise<unknown>): Promise<T> {
    return this.#step(what, act, tear);
  }
}

class FaultyWritableFile implements WritableFile {
  readonly #fs: FaultyFileSystem;
  readonly #inner: WritableFile;
  readonly #name: string;

  constructor(fs: FaultyFileSystem, inner: WritableFile, name: string) {
    this.#fs = fs;
    this.#inner = inner;
    this.#name = name;
  }

  write(data: Uint8Array, position: number): Promise<void> {
    return this.#fs.fileStep(
      `write ${this.#name} @${position} +${data.length}`,
      () => this.#inner.write(data, position),
      () => this.#inner.write(data.subarray(0, Math.floor(data.length / 2)), position),
    );
  }

  datasync(): Promise<void> {
    return this.#fs.fileStep(`datasync ${this.#name}`, () => this.#inner.datasync());
  }

  truncate(length: number): Promise<void> {
    return this.#fs.fileStep(`truncate ${this.#name} ${length}`, () => this.#inner.truncate(length));
  }

  async close(): Promise<void> {
    try {
      await this.#fs.fileStep(`close ${this.#name}`, () => this.#closeInner());
    } catch (error) {
      // The descriptor is released anyway, as the kernel does for a crashed process.
      await this.#closeInner();
      throw error;
    }
  }

  #closed = false;

  async #closeInner(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#inner.close();
  }
}

function base(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
