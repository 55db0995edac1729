// A failed request as the inspector answers it: an HTTP status and a JSON body { error: { code, message } }.

import { isMoomemError } from "../errors.ts";

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers (e.g. `Allow` on a 405). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** Status for a MoomemError a store call threw: what the caller can fix is 4xx, the store's own trouble 5xx. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  INVALID_USER_ID: 400,
  READ_ONLY: 403,
  STORE_LOCKED: 409,
  STORE_CLOSED: 503,
  EMBEDDING_FAILURE: 502,
  EXTRACTION_FAILURE: 502,
};

/** Any thrown value as the HttpError to answer with; an unexpected one is a 500 that hides the stack. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isMoomemError(error)) return new HttpError(STATUS_BY_CODE[error.code] ?? 500, error.code, error.message);
  return new HttpError(500, "INTERNAL", "the inspector failed unexpectedly; its terminal shows the details");
}
