// Tells a wrong provider configuration (bad key, no permission, wrong URL or model) from a passing failure.

import { MoomemError, isMoomemError } from "../../errors.ts";

/** Statuses that no retry or later call can fix: the key, its permissions, the URL or the model name is wrong. */
export const CONFIGURATION_STATUSES: ReadonlySet<number> = new Set([401, 403, 404]);
const MAX_DEPTH = 5;

/**
 * The HTTP status (401, 403 or 404) that makes `error` a configuration failure, looked up on the error and its
 * causes: `status` as the adapters' `OpenAIRequestError` has it, `statusCode` as the Vercel AI SDK's
 * `APICallError` has it (so a `{ chat }` function wrapping `generateText` behaves like the built-in client).
 * Undefined for anything else: timeouts, network errors, 429, 5xx, unusable answers.
 */
export function configurationStatus(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && typeof current === "object" && current !== null; depth++) {
    const { status, statusCode, kind } = current as { status?: unknown; statusCode?: unknown; kind?: unknown };
    // An OpenAIRequestError of kind "invalid-response" carries the 200 it got; only HTTP failures count.
    const value = kind === undefined || kind === "http" ? (typeof status === "number" ? status : statusCode) : undefined;
    if (typeof value === "number" && CONFIGURATION_STATUSES.has(value)) return value;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The `PROVIDER_CONFIG` error for a failed provider call when it is a configuration failure (or already one),
 * else undefined (the caller then reports its usual, degradable code).
 */
export function providerConfigError(owner: string, reason: string, error: unknown): MoomemError | undefined {
  if (isMoomemError(error, "PROVIDER_CONFIG")) return error;
  const status = configurationStatus(error);
  if (status === undefined) return undefined;
  return new MoomemError(
    "PROVIDER_CONFIG",
    `${owner}: the provider refused the configuration (HTTP ${status}), so retrying cannot help; fix the setting it names and try again. ${reason}`,
    { cause: error },
  );
}
