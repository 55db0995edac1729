// Clocks: the system clock by default, a controllable one for tests.

import type { Clock } from "./types.ts";
import { invalidArgument } from "./errors.ts";
import { describeValue } from "./describe-value.ts";

/**
 * The largest distance from the epoch, in ms, that a JavaScript `Date` can hold (±100,000,000 days:
 * years -271821 to 275760). Every time moomem stores or compares is within it, so that every time can
 * be printed (`toISOString()` throws `RangeError: Invalid time value` outside it).
 */
export const MAX_TIME_MS = 8.64e15;

/** True when `value` is a number of ms since epoch that a `Date` can hold (see {@link MAX_TIME_MS}). */
export function isValidTime(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && Math.abs(value) <= MAX_TIME_MS;
}

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
    if (!isValidTime(time)) throw invalidArgument(`FixedClock time must be ms since epoch within ±8.64e15 (the range of a Date), got ${describeValue(time)}`);
    this.#time = time;
  }

  now(): number {
    return this.#time;
  }

  /** Sets the time (ms since epoch). */
  set(time: number): void {
    if (!isValidTime(time)) throw invalidArgument(`FixedClock.set needs ms since epoch within ±8.64e15 (the range of a Date), got ${describeValue(time)}`);
    this.#time = time;
  }

  /** Moves the time forward by `ms`. */
  advance(ms: number): void {
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)
      throw invalidArgument(`FixedClock.advance needs a non-negative number of ms, got ${describeValue(ms)}`);
    if (!isValidTime(this.#time + ms))
      throw invalidArgument(`FixedClock.advance(${ms}) would move the clock past the largest time a Date can hold (8.64e15 ms)`);
    this.#time += ms;
  }
}
