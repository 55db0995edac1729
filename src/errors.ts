// The one error class moomem throws, and its code table.

/** Every failure moomem reports carries one of these codes. */
export type MoomemErrorCode =
  | "INVALID_USER_ID"
  | "INVALID_ARGUMENT"
  | "STORE_CORRUPTED"
  | "STORE_LOCKED"
  /**
   * Another process kept changing the user this write was for (a store shared by several processes, e.g. on
   * PostgreSQL): the write was planned again on the newer entries and retried, a bounded number of times, and
   * was never stored. Nothing of it was kept; call again.
   */
  | "WRITE_CONFLICT"
  /** A read-only open of a folder that holds no store (read-only opens never create one). */
  | "STORE_NOT_FOUND"
  | "STORE_CLOSED"
  | "IO_FAILURE"
  | "EXTRACTION_FAILURE"
  | "EMBEDDING_FAILURE"
  /**
   * A model provider refused the configuration (HTTP 401, 403 or 404: key, permissions, URL or model name; or an
   * embedder whose vectors do not have the configured `dim`). Unlike `EXTRACTION_FAILURE` / `EMBEDDING_FAILURE`,
   * the store never degrades on it: the call fails and nothing is stored, because no later call would succeed.
   */
  | "PROVIDER_CONFIG"
  | "BACKEND_UNSUPPORTED"
  | "EMBEDDER_MISMATCH"
  | "READ_ONLY"
  /** An optional package a feature needs is not installed (e.g. `@modelcontextprotocol/sdk` for `moomem mcp`). */
  | "MISSING_DEPENDENCY";

/**
 * The error every public moomem call throws (or rejects with).
 *
 * @example
 * ```ts
 * try { await mem.add("bad/id", "hi"); }
 * catch (e) { if (isMoomemError(e) && e.code === "INVALID_USER_ID") console.log(e.message); }
 * ```
 */
export class MoomemError extends Error {
  readonly code: MoomemErrorCode;

  constructor(code: MoomemErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MoomemError";
    this.code = code;
  }
}

/** True when `value` is a {@link MoomemError} (optionally with the given code). */
export function isMoomemError(value: unknown, code?: MoomemErrorCode): value is MoomemError {
  try {
    return value instanceof MoomemError && (code === undefined || value.code === code);
  } catch {
    // `instanceof` asks a Proxy for its prototype, and a revoked one throws: it is no MoomemError.
    return false;
  }
}

/** Shorthand for the most common failure: a bad argument. */
export function invalidArgument(message: string): MoomemError {
  return new MoomemError("INVALID_ARGUMENT", message);
}

/** Renders any thrown value as a short reason string (for metadata and messages). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
