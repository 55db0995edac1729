// Strict readers for the inspector API's query strings: unknown, repeated or malformed parameters are a 400 that names them.

import { invalidArgument } from "../errors.ts";
import type { Metadata } from "../types.ts";

/** Longest value any parameter may have (a metadata filter is the longest legitimate one). */
export const MAX_PARAM_CHARS = 4096;

/**
 * The parameters of one request, checked against the names the endpoint takes.
 * Every reader throws `INVALID_ARGUMENT` with the endpoint, the name, what was
 * expected and what came.
 */
export class QueryParams {
  readonly #where: string;
  readonly #values = new Map<string, string>();

  constructor(search: URLSearchParams, allowed: readonly string[], where: string) {
    this.#where = where;
    for (const [name, value] of search) {
      if (!allowed.includes(name)) {
        throw invalidArgument(`${where}: unknown parameter ${JSON.stringify(cut(name))}; it takes ${allowed.map((a) => `"${a}"`).join(", ")}`);
      }
      if (this.#values.has(name)) throw invalidArgument(`${where}: parameter "${name}" was given twice; give it once`);
      if (value.length > MAX_PARAM_CHARS) {
        throw invalidArgument(`${where}: parameter "${name}" is ${value.length} characters long; the limit is ${MAX_PARAM_CHARS}`);
      }
      this.#values.set(name, value);
    }
  }

  /** The raw value; an empty value counts as absent (an empty form field). */
  string(name: string): string | undefined {
    const value = this.#values.get(name);
    return value === undefined || value === "" ? undefined : value;
  }

  /** A string of at most `max` characters. */
  text(name: string, max: number): string | undefined {
    const value = this.string(name);
    if (value !== undefined && value.length > max) {
      throw invalidArgument(`${this.#where}: "${name}" is ${value.length} characters long; the limit is ${max}`);
    }
    return value;
  }

  /** One of `choices`, or `fallback` when absent. */
  choice<T extends string>(name: string, choices: readonly T[], fallback: T): T;
  choice<T extends string>(name: string, choices: readonly T[]): T | undefined;
  choice<T extends string>(name: string, choices: readonly T[], fallback?: T): T | undefined {
    const value = this.string(name);
    if (value === undefined) return fallback;
    if (!(choices as readonly string[]).includes(value)) {
      throw invalidArgument(`${this.#where}: "${name}" must be one of ${choices.join(", ")}, got ${JSON.stringify(cut(value))}`);
    }
    return value as T;
  }

  /** A whole number in [min, max], or `fallback` when absent. */
  integer(name: string, min: number, max: number, fallback: number): number {
    const value = this.string(name);
    if (value === undefined) return fallback;
    const n = /^-?\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw invalidArgument(`${this.#where}: "${name}" must be a whole number from ${min} to ${max}, got ${JSON.stringify(cut(value))}`);
    }
    return n;
  }

  /** A time: ms since epoch, or an ISO 8601 date with a time zone (e.g. `2025-06-01T12:00:00Z`). */
  time(name: string): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    let ms = Number.NaN;
    if (/^-?\d{1,16}$/.test(value)) ms = Number(value);
    else if (/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value)) ms = Date.parse(value);
    // The same range a Date can hold, so the store's own checks never see a worse value.
    if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15) {
      throw invalidArgument(
        `${this.#where}: "${name}" must be a time in ms since 1970 or an ISO date such as 2025-06-01T12:00:00Z, got ${JSON.stringify(cut(value))}`,
      );
    }
    return ms;
  }

  /** A JSON object (a metadata filter: exact values per key). */
  jsonObject(name: string): Metadata | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw invalidArgument(
        `${this.#where}: "${name}" must be a JSON object such as {"channel":"chat"}, but it is not valid JSON (${(error as Error).message})`,
      );
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw invalidArgument(`${this.#where}: "${name}" must be a JSON object such as {"channel":"chat"}, got ${JSON.stringify(cut(value))}`);
    }
    return parsed as Metadata;
  }
}

/** A value cut for an error message, so a 4 KiB parameter is not echoed whole. */
function cut(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
