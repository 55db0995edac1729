// Drives fixtures/lock-client.ts (or another fixture speaking JSON lines) as a child process, optionally in its own
// pid namespace, or as a worker thread.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Worker } from "node:worker_threads";
import { runtimeCommand } from "./script-runner.ts";

export interface ClientEvent {
  event: string;
  pid?: number;
  thread?: number;
  seq?: number;
  count?: number;
  id?: string;
  code?: string;
  message?: string;
}

export interface ClientConfig {
  dir: string;
  lockLeaseMs?: number;
  noSockets?: boolean;
}

/** One writer under test: events in arrival order, commands out. */
export class LockClient {
  readonly #events: ClientEvent[] = [];
  readonly #waiters: Array<(e: ClientEvent) => void> = [];
  readonly #send: (command: string) => void;
  readonly #kill: () => void;
  readonly exited: Promise<void>;
  stderr = "";

  private constructor(send: (command: string) => void, kill: () => void, exited: Promise<void>) {
    this.#send = send;
    this.#kill = kill;
    this.exited = exited;
  }

  #push(event: ClientEvent): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter(event);
    else this.#events.push(event);
  }

  /** A child process running the bundled fixture; `prefix` wraps the command (e.g. {@link NEW_PID_NAMESPACE}). */
  static process(bundle: string, config: object, prefix: readonly string[] = []): LockClient {
    const [program, ...args] = [...prefix, ...runtimeCommand(bundle), JSON.stringify(config)];
    const child: ChildProcess = spawn(program!, args, { stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const client = new LockClient(
      (command) => child.stdin!.write(`${command}\n`),
      () => child.kill("SIGKILL"),
      exited,
    );
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        client.#push(JSON.parse(line) as ClientEvent);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      client.stderr += chunk.toString();
    });
    void exited.then(() => client.#push({ event: "exit", message: client.stderr }));
    return client;
  }

  /** A worker thread of this process running the bundled fixture. */
  static thread(bundle: string, config: ClientConfig): LockClient {
    const worker = new Worker(bundle, { workerData: config });
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    const client = new LockClient(
      (command) => worker.postMessage(command),
      () => void worker.terminate(),
      exited,
    );
    worker.on("message", (event: ClientEvent) => client.#push(event));
    worker.on("error", (error: Error) => {
      client.stderr += String(error.stack ?? error);
    });
    void exited.then(() => client.#push({ event: "exit", message: client.stderr }));
    return client;
  }

  /** The next event (in order). */
  next(): Promise<ClientEvent> {
    const event = this.#events.shift();
    if (event !== undefined) return Promise.resolve(event);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  send(command: string): void {
    this.#send(command);
  }

  /** Sends a command and returns the event it answers with. */
  async ask(command: string): Promise<ClientEvent> {
    this.send(command);
    return this.next();
  }

  /** Ends the writer without closing its store: SIGKILL for a process, terminate() for a thread. */
  kill(): void {
    this.#kill();
  }
}

/**
 * Why separate pid namespaces cannot be made here, or null when `unshare --pid --net --fork --mount-proc` works
 * (Linux, as root or with user namespaces allowed).
 */
export function pidNamespaceUnavailable(): string | null {
  if (process.platform !== "linux") return `pid namespaces are Linux-only (platform ${process.platform})`;
  const [program, ...args] = NEW_PID_NAMESPACE;
  const probe = spawnSync(program, [...args, "true"], { encoding: "utf8" });
  if (probe.error !== undefined) return `unshare cannot run: ${probe.error.message}`;
  if (probe.status !== 0)
    return `${NEW_PID_NAMESPACE.join(" ")} failed (${probe.stderr.trim() || `exit ${String(probe.status)}`}); it needs root or user namespaces`;
  return null;
}

/**
 * The prefix that starts a command as pid 1 of new pid and network namespaces with its own /proc: what a
 * container sees (its pids and its network are its own; the store folder is shared).
 */
export const NEW_PID_NAMESPACE = ["unshare", "--pid", "--net", "--fork", "--mount-proc"] as const;
