// Driver errors → MoomemError: which failures are the connection's, which are worth one retry, and no secret in any message.

import { MoomemError, describeError } from "../../errors.ts";

/**
 * The SQLSTATE of a server error (`23505`, `40P01`, …), or undefined for errors
 * that never reached the server (socket refused, reset, closed). Drivers put it
 * in `code`; Node socket errors use `code` too (`ECONNREFUSED`, `EPIPE`), so
 * only the shape of a real SQLSTATE counts.
 */
export function sqlState(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== "string") return undefined;
  return /^(?:[0-9][0-9A-Z]|HV|P0|XX|F0)[0-9A-Z]{3}$/.test(code) ? code : undefined;
}

/**
 * The connection failed, not the statement: no SQLSTATE at all, class 08
 * (connection exception) or 57P (the server shut down or restarted).
 */
export function isConnectionError(error: unknown): boolean {
  const state = sqlState(error);
  return state === undefined || state.startsWith("08") || state.startsWith("57P");
}

/**
 * The connection was refused: the statement never reached a server, so nothing of it can have been
 * stored (unlike a connection that broke after the statement was sent).
 */
export function neverSent(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "ECONNREFUSED";
}

/** Deadlock or serialization failure: PostgreSQL rolled the transaction back and running it again is the documented remedy. */
export function isRetryableConflict(error: unknown): boolean {
  const state = sqlState(error);
  return state === "40P01" || state === "40001";
}

/**
 * Masks what must never be printed: the password of any `scheme://user:password@`
 * URL, and each literal secret (e.g. the password of the connection string the
 * backend was given, which a driver may echo in its own words).
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, "$1***@");
  for (const secret of secrets) {
    if (secret.length > 0) out = out.split(secret).join("***");
  }
  return out;
}

/**
 * `IO_FAILURE` for a failed database call: what was attempted, the driver's
 * reason and SQLSTATE, and what to do, with secrets masked. The original error
 * stays available as `cause` for logs, unless its message held a secret (Node
 * prints a cause with the error).
 */
export function ioFailure(what: string, error: unknown, secrets: readonly string[]): MoomemError {
  if (error instanceof MoomemError) return error;
  const state = sqlState(error);
  const raw = describeError(error);
  const reason = redact(raw, secrets);
  const hint = isConnectionError(error)
    ? "; check that the database is reachable, then retry"
    : state === "22P05" || state === "22021"
      ? "; PostgreSQL text cannot hold the character U+0000 (nor an unpaired surrogate): remove it from the content and metadata"
      : "";
  const message = redact(`${what}: ${reason}${state === undefined ? "" : ` (SQLSTATE ${state})`}${hint}`, secrets);
  return new MoomemError("IO_FAILURE", message, reason === raw ? { cause: error } : undefined);
}
