// Clocks: the system clock by default, a controllable one for tests.

import type { Clock } from "./types.ts";
import { invalidArgument } from "./errors.ts";

/**
 * Wall-clock time (`Date.now()`), the default.
 *
 * @example
 * ```ts
 * const mem = await MemoryStore.open("./memory", { clock: new SystemClock() });
 * ```
 */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/**
 * A clock that only moves when told to, for reproducible tests and demos.
 *
 * @example
 * ```ts
 * const clock = new FixedClock(Date.parse("2026-01-01"));
 * const mem = await MemoryStore.open(":memory:", { clock });
 * clock.advance(86_400_000); // one day later
 * ```
 */
export class FixedClock implements Clock {
  #time: number;

  constructor(time = 0) {
    if (!Number.isFinite(time)) throw invalidArgument(`FixedClock time must be a finite number of ms, got ${String(time)}`);
    this.#time = time;
  }

  now(): number {
    return this.#time;
  }

  /** Sets the time (ms since epoch). */
  set(time: number): void {
    if (!Number.isFinite(time)) throw invalidArgument(`FixedClock.set needs a finite number of ms, got ${String(time)}`);
    this.#time = time;
  }

  /** Moves the time forward by `ms`. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw invalidArgument(`FixedClock.advance needs a non-negative number of ms, got ${String(ms)}`);
    this.#time += ms;
  }
}
