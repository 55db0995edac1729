// The web-platform globals every runtime moomem supports provides (Node ≥ 20, Bun, Deno, browsers), declared
// as narrowly as the runtime-neutral core uses them. The core compiles against these and ES2022 alone
// (tsconfig.core.json), so a DOM-only or Node-only global there is a compile error, not a browser bug.
// A global the core starts to need is added here only if all four runtimes have it.
/* eslint-disable no-var -- an ambient global is declared with var: that also puts it on globalThis (globalThis.crypto). */

interface TextEncoder {
  encode(input?: string): Uint8Array;
}
declare var TextEncoder: { new (): TextEncoder };

interface TextDecoder {
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
declare var TextDecoder: { new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder };

declare function structuredClone<T>(value: T): T;

/** A timer: a number in browsers, an object on Node; only ever handed back to clearTimeout. */
type TimerHandle = unknown;
declare function setTimeout(handler: () => void, timeout?: number): TimerHandle;
declare function clearTimeout(handle: TimerHandle): void;

interface Crypto {
  getRandomValues<T extends Uint8Array | Uint16Array | Uint32Array>(array: T): T;
}
declare var crypto: Crypto;

interface URLSearchParams {
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  append(name: string, value: string): void;
  delete(name: string): void;
  keys(): IterableIterator<string>;
  entries(): IterableIterator<[string, string]>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare var URLSearchParams: { new (init?: string | Record<string, string> | [string, string][]): URLSearchParams };

interface URL {
  href: string;
  readonly origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  readonly searchParams: URLSearchParams;
  hash: string;
  toString(): string;
}
declare var URL: { new (url: string, base?: string | URL): URL };

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}
interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { new (): AbortController };
