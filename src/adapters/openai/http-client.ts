// POST-JSON over `fetch` for the OpenAI-compatible adapters: timeouts, bounded retries, clear causes, no leaked key.

import { MoomemError } from "../../errors.ts";
import { CONFIGURATION_STATUSES } from "./provider-config.ts";
import { SecretRedactor } from "./secret-redaction.ts";

/** The part of a `fetch` Response the adapters read. */
export interface FetchResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** The request the adapters hand to `fetch`. */
export interface FetchInitLike {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

/** A structural subset of `fetch`: `globalThis.fetch`, undici's, or a scripted fake in tests all fit. */
export type FetchLike = (url: string, init: FetchInitLike) => Promise<FetchResponseLike>;

/**
 * How to reach an OpenAI-compatible server. Shared by {@link OpenAIHttpClient}, the embedder and the chat function.
 *
 * Retries: a request answered HTTP 408, 429 or 5xx (except 501 and 505) is sent again up to `maxRetries` times,
 * waiting `retryDelayMs · 2^(n-1)` (with jitter, at most `maxRetryDelayMs`) or what the server's `Retry-After` /
 * `retry-after-ms` header asks for. A server that asks for a longer wait than `maxRetryDelayMs`, or a 429 that
 * reports an exhausted quota, fails at once. Timeouts, network errors and other statuses are not retried: the
 * store degrades instead (docs/decisions.md, "The add pipeline"), which is faster than waiting for a server that is not there.
 */
export interface ConnectionOptions {
  /**
   * API root including the version path, e.g. `https://api.openai.com/v1`, `https://api.deepseek.com/v1`, `http://localhost:11434/v1`.
   * A user name or password in it (`http://user:pass@host/v1`) is refused: pass credentials as `apiKey` or in `headers`.
   * Query parameters are sent with every request; their values (except `api-version`) are treated as secrets, like `apiKey`.
   */
  baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never stored, logged or put into an error. Omit for local servers. */
  apiKey?: string | undefined;
  /**
   * Extra request headers (e.g. `{ "api-key": … }` for Azure). Their values are treated as secrets, like `apiKey`
   * (kept out of every message), except those of headers that carry no credentials by design: Accept,
   * Content-Type, User-Agent, Referer, HTTP-Referer, X-Title, OpenAI-Organization, OpenAI-Project, OpenAI-Beta.
   */
  headers?: Record<string, string> | undefined;
  /** Per-attempt time limit in ms, covering the response body too. */
  timeoutMs?: number | undefined;
  /** How many times a 408/429/5xx answer is retried (default 2; 0 disables retries). */
  maxRetries?: number | undefined;
  /** First backoff delay in ms (default 500); doubles with each retry. */
  retryDelayMs?: number | undefined;
  /** Longest wait before a retry in ms (default 10 000); a longer `Retry-After` fails the call instead. */
  maxRetryDelayMs?: number | undefined;
  /** `fetch` to use (default: the runtime's global `fetch`, looked up at call time). */
  fetch?: FetchLike | undefined;
}

/** Why a request failed. */
export type OpenAIFailureKind = "http" | "timeout" | "network" | "aborted" | "invalid-response";

/**
 * The cause attached to the `MoomemError` an adapter throws. Its message names the endpoint (origin and path
 * only), the HTTP status and an excerpt of the provider's message, and never the API key.
 */
export class OpenAIRequestError extends Error {
  readonly kind: OpenAIFailureKind;
  /** HTTP status, for `kind === "http"`. */
  readonly status: number | undefined;
  /** `POST <origin><path>` of the failed request. */
  readonly endpoint: string;
  /** Requests sent, retries included. */
  readonly attempts: number;
  /** Excerpt of what the provider said (redacted), when it said anything. */
  readonly providerMessage: string | undefined;

  constructor(
    kind: OpenAIFailureKind,
    message: string,
    details: { endpoint: string; attempts: number; status?: number; providerMessage?: string; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "OpenAIRequestError";
    this.kind = kind;
    this.status = details.status;
    this.endpoint = details.endpoint;
    this.attempts = details.attempts;
    this.providerMessage = details.providerMessage;
  }

  /**
   * True for an HTTP 401, 403 or 404 answer: the key, its permissions, the URL or the model name is wrong, so
   * neither a retry nor a later call can succeed. The adapters report these as `PROVIDER_CONFIG`.
   */
  get configuration(): boolean {
    return this.kind === "http" && this.status !== undefined && CONFIGURATION_STATUSES.has(this.status);
  }
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
const DEFAULT_MAX_RETRY_DELAY_MS = 10_000;
/** setTimeout's largest delay; longer ones fire immediately on every runtime. */
const MAX_TIMER_MS = 2_147_483_647;
const EXCERPT_CHARS = 300;
/** Headers whose values are public by design (attribution, content negotiation, account routing): not redacted. */
const PUBLIC_HEADERS = new Set([
  "accept",
  "content-type",
  "user-agent",
  "referer",
  "http-referer",
  "x-title",
  "openai-organization",
  "openai-project",
  "openai-beta",
]);
/** Query parameters that name an API version, not a credential (Azure OpenAI's `api-version`). */
const PUBLIC_QUERY = new Set(["api-version", "version"]);

/** Sends JSON POST requests to one OpenAI-compatible server. The API key lives in a private field only. */
export class OpenAIHttpClient {
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly #base: URL;
  readonly #headers: Record<string, string>;
  readonly #fetch: FetchLike | undefined;
  readonly #redactor: SecretRedactor;

  /**
   * @param options connection settings (validated here; a bad one throws `INVALID_ARGUMENT`)
   * @param owner names the adapter in error messages, e.g. `"OpenAIEmbedder"`
   * @param defaultTimeoutMs used when `options.timeoutMs` is absent
   */
  constructor(options: ConnectionOptions, owner: string, defaultTimeoutMs: number) {
    const base = parseBaseURL(options.baseURL, owner);
    const apiKey = options.apiKey;
    if (apiKey !== undefined && typeof apiKey !== "string") {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: apiKey must be a string (got ${typeof apiKey}); omit it for servers without auth.`);
    }
    const extra = options.headers ?? {};
    if (typeof extra !== "object" || extra === null || Array.isArray(extra)) {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: headers must be an object of header name → string value.`);
    }
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (apiKey !== undefined && apiKey !== "") headers["authorization"] = `Bearer ${apiKey}`;
    const secrets: (string | undefined)[] = [apiKey];
    for (const [name, value] of Object.entries(extra)) {
      if (typeof value !== "string") {
        throw new MoomemError("INVALID_ARGUMENT", `${owner}: header "${name}" must have a string value (got ${typeof value}).`);
      }
      headers[name.toLowerCase()] = value;
      if (!PUBLIC_HEADERS.has(name.toLowerCase())) secrets.push(value, value.replace(/^(Bearer|Basic|Token)\s+/i, ""));
    }
    for (const [name, value] of base.searchParams) {
      if (!PUBLIC_QUERY.has(name.toLowerCase())) secrets.push(value);
    }
    if (options.fetch !== undefined && typeof options.fetch !== "function") {
      throw new MoomemError("INVALID_ARGUMENT", `${owner}: fetch must be a function like globalThis.fetch (got ${typeof options.fetch}).`);
    }
    this.#base = base;
    this.#headers = headers;
    this.#fetch = options.fetch;
    this.#redactor = new SecretRedactor(secrets);
    this.timeoutMs = integerOption(options.timeoutMs, defaultTimeoutMs, 1, MAX_TIMER_MS, "timeoutMs", owner);
    this.maxRetries = integerOption(options.maxRetries, DEFAULT_MAX_RETRIES, 0, 10, "maxRetries", owner);
    this.retryDelayMs = integerOption(options.retryDelayMs, DEFAULT_RETRY_DELAY_MS, 0, MAX_TIMER_MS, "retryDelayMs", owner);
    this.maxRetryDelayMs = integerOption(options.maxRetryDelayMs, DEFAULT_MAX_RETRY_DELAY_MS, 0, MAX_TIMER_MS, "maxRetryDelayMs", owner);
  }

  /** Origin and path of the API root, for messages (no credentials, no query). */
  get baseLabel(): string {
    return this.#base.origin + this.#base.pathname.replace(/\/+$/, "");
  }

  /** `text` with the API key and secret header values replaced. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** A copy of a thrown value (and its cause chain) with every secret removed. */
  sanitize(value: unknown): unknown {
    return this.#redactor.sanitize(value);
  }

  /**
   * POSTs `body` as JSON to `<baseURL>/<path>` and resolves to the parsed JSON answer.
   * Rejects with an {@link OpenAIRequestError} (see {@link ConnectionOptions} for the retry rules).
   */
  async postJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(this.#base.href);
    url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
    const endpoint = `POST ${url.origin}${url.pathname}`;
    const payload = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted === true) {
        throw new OpenAIRequestError("aborted", `${endpoint} was aborted by the caller.`, { endpoint, attempts: attempt - 1 });
      }
      const { response, text } = await this.#send(url.href, endpoint, payload, attempt, signal);
      if (response.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch (_error) {
          // No cause: the parser's message quotes the body cut at its own length, which can split a secret.
          throw new OpenAIRequestError(
            "invalid-response",
            `${endpoint} answered HTTP ${response.status} with a body that is not JSON: ${quote(excerpt(this.redact(text)))}. ` +
              `Check that baseURL points at an OpenAI-compatible API (it usually ends in /v1).`,
            { endpoint, attempts: attempt, status: response.status },
          );
        }
      }
      const failure = this.#httpFailure(response, text, endpoint, attempt);
      if (!failure.retryable || attempt > this.maxRetries) throw failure.error;
      const delay = this.#retryDelay(response, attempt);
      if (delay === null) {
        throw new OpenAIRequestError(
          "http",
          `${failure.error.message} The server asked to wait ${describeWait(response)} before retrying, longer than maxRetryDelayMs (${this.maxRetryDelayMs} ms); not retried.`,
          { endpoint, attempts: attempt, status: response.status, ...optional(failure.error.providerMessage) },
        );
      }
      await sleep(delay, signal, endpoint, attempt);
    }
  }

  /** One attempt: fetch and read the body, under the per-attempt timeout and the caller's signal. */
  async #send(
    url: string,
    endpoint: string,
    payload: string,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<{ response: FetchResponseLike; text: string }> {
    const fetchFn = this.#fetch ?? globalFetch(endpoint);
    const controller = new AbortController();
    let timedOut = false;
    let rejectRace: (reason: unknown) => void = noop;
    // Settles when the attempt must end early, even if the injected fetch ignores its signal.
    const stop = new Promise<never>((_resolve, reject) => {
      rejectRace = reject;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      rejectRace(new Error("timeout"));
    }, this.timeoutMs);
    const onAbort = (): void => {
      controller.abort();
      rejectRace(new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const work = (async () => {
      const response = await fetchFn(url, { method: "POST", headers: { ...this.#headers }, body: payload, signal: controller.signal });
      return { response, text: await response.text() };
    })();
    try {
      return await Promise.race([work, stop]);
    } catch (error) {
      // When `stop` wins, a late rejection of `work` is already observed by Promise.race, so it never goes unhandled.
      if (timedOut) {
        throw new OpenAIRequestError(
          "timeout",
          `${endpoint} timed out after ${this.timeoutMs} ms (timeoutMs); the server did not answer in time. Raise timeoutMs or check the server.`,
          { endpoint, attempts: attempt },
        );
      }
      if (signal?.aborted === true) {
        throw new OpenAIRequestError("aborted", `${endpoint} was aborted by the caller.`, { endpoint, attempts: attempt });
      }
      const cause = this.sanitize(error);
      throw new OpenAIRequestError(
        "network",
        `${endpoint} failed before any HTTP answer: ${this.redact(describeNetworkError(error))}. Is the server running, and is baseURL right?`,
        { endpoint, attempts: attempt, cause },
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  #httpFailure(response: FetchResponseLike, text: string, endpoint: string, attempt: number): { error: OpenAIRequestError; retryable: boolean } {
    const { message, code } = providerError(text);
    // Redact the whole message first: a cut made before it could split a secret into pieces too short to recognise.
    const providerMessage = message === undefined ? undefined : excerpt(this.redact(message));
    const status = response.status;
    const quotaGone = status === 429 && code !== undefined && /quota|billing|balance|credit/i.test(code);
    const retryable = !quotaGone && (status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505));
    const statusText = response.statusText.trim() === "" ? "" : ` ${excerpt(this.redact(response.statusText))}`;
    const said = providerMessage === undefined ? "" : ` ${quote(providerMessage)}`;
    const tries = attempt > 1 ? ` (after ${attempt} attempts)` : "";
    const text2 = `${endpoint} answered HTTP ${status}${statusText}${tries}:${said} — ${statusHint(status, quotaGone)}`;
    return {
      retryable,
      error: new OpenAIRequestError("http", text2, { endpoint, attempts: attempt, status, ...optional(providerMessage) }),
    };
  }

  /** ms to wait before retry number `attempt`, or null when the server asks for more than we allow. */
  #retryDelay(response: FetchResponseLike, attempt: number): number | null {
    const asked = requestedWaitMs(response);
    if (asked !== undefined) return asked > this.maxRetryDelayMs ? null : asked;
    const exponential = this.retryDelayMs * 2 ** (attempt - 1);
    return Math.min(this.maxRetryDelayMs, Math.round(exponential * (0.5 + Math.random() * 0.5)));
  }
}

/**
 * The API root as a URL. Errors never quote the value (nor keep the parser's error, which does): a URL can hold a
 * password or a key, and an error is something people paste into issues.
 */
function parseBaseURL(value: unknown, owner: string): URL {
  const example = "such as https://api.openai.com/v1 or http://localhost:11434/v1";
  if (typeof value !== "string" || value.trim() === "") {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: baseURL must be a non-empty URL string ${example}.`);
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch (error) {
    const reason = error instanceof Error ? error.name : typeof error;
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: baseURL is not a valid URL (${reason}); give an absolute http(s) URL ${example}.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: baseURL must use http or https (got "${url.protocol}"); use an URL ${example}.`);
  }
  if (url.username !== "" || url.password !== "") {
    // fetch refuses such URLs and quotes them whole in its error, which would then be stored as a degrade reason.
    throw new MoomemError(
      "INVALID_ARGUMENT",
      `${owner}: baseURL must not contain a user name or password (the part before "@"); remove it and pass the key as apiKey, or as a header (headers: { authorization: "Basic …" }).`,
    );
  }
  return url;
}

function integerOption(value: unknown, fallback: number, min: number, max: number, name: string, owner: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new MoomemError("INVALID_ARGUMENT", `${owner}: ${name} must be an integer from ${min} to ${max} (got ${String(value)}).`);
  }
  return value;
}

function globalFetch(endpoint: string): FetchLike {
  const candidate = (globalThis as { fetch?: unknown }).fetch;
  if (typeof candidate !== "function") {
    throw new MoomemError("BACKEND_UNSUPPORTED", `${endpoint}: this runtime has no global fetch; pass one as the fetch option.`);
  }
  // Called without a receiver: browsers reject fetch invoked as a method of another object.
  return (url, init) => (candidate as (u: string, i: FetchInitLike) => Promise<FetchResponseLike>)(url, init);
}

/** The provider's own error message and code, from the usual JSON error shapes or the raw body. */
function providerError(text: string): { message?: string; code?: string } {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    // Not JSON (an HTML error page from a proxy, say): the raw text is the best message there is.
    return { message: trimmed };
  }
  const root = asRecord(parsed);
  const nested = asRecord(root?.["error"]);
  const message = firstString(nested?.["message"], root?.["error"], root?.["message"], root?.["detail"], root?.["msg"]);
  const code = firstString(nested?.["code"], nested?.["type"], root?.["code"], root?.["type"]);
  return { ...(message === undefined ? { message: trimmed } : { message }), ...(code === undefined ? {} : { code }) };
}

function statusHint(status: number, quotaGone: boolean): string {
  if (status === 400) return 'the server rejected the request; check the model name, and set responseFormat: "none" if it does not support JSON mode.';
  if (status === 401) return "the API key was rejected; check apiKey (e.g. MOOMEM_LLM_API_KEY / MOOMEM_EMBED_API_KEY).";
  if (status === 403) return "access denied; the key may lack permission for this model or endpoint.";
  if (status === 404) return "not found; check baseURL (it usually ends in /v1) and the model name.";
  if (status === 408) return "the server timed out the request; try again later.";
  if (quotaGone) return "the account is out of quota or credit; not retried.";
  if (status === 429) return "rate limited; slow down or raise the provider limit.";
  if (status >= 500) return "the provider failed; try again later.";
  return "unexpected status from the server.";
}

function requestedWaitMs(response: FetchResponseLike): number | undefined {
  const ms = Number(response.headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const header = response.headers.get("retry-after");
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function describeWait(response: FetchResponseLike): string {
  const ms = requestedWaitMs(response);
  return ms === undefined ? "longer" : `${ms} ms`;
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [error.message || error.name];
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    parts.push(typeof code === "string" && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message);
    cause = cause.cause;
  }
  return parts.filter((part) => part !== "").join(": ");
}

function sleep(ms: number, signal: AbortSignal | undefined, endpoint: string, attempts: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new OpenAIRequestError("aborted", `${endpoint} was aborted by the caller while waiting to retry.`, { endpoint, attempts }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === "string" && value.trim() !== "") return value;
  return undefined;
}

/** Whitespace collapsed and cut to a readable length. */
export function excerpt(text: string, max: number = EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

function optional(providerMessage: string | undefined): { providerMessage?: string } {
  return providerMessage === undefined ? {} : { providerMessage };
}

/** Placeholder until the race's reject function is captured (the Promise executor runs synchronously). */
function noop(): void {}
