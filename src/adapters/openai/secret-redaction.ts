// Keeps API keys and other secrets out of every message, error and cause the OpenAI adapters produce.

/** Secrets shorter than this are not real credentials (e.g. Ollama's placeholder key); redacting them would garble text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Longest piece of a secret that may survive in a text: any run of this many characters of a secret (or half of
 * a short one, at least {@link MIN_SECRET_LENGTH}) is redacted, so a provider that echoes part of a key, or a cut
 * that splits one, shows nothing that narrows the key down.
 */
const MAX_FRAGMENT = 8;

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Cause chains deeper than this are cut; no real error nests further. */
const MAX_CAUSE_DEPTH = 5;

/** Base of the rolling hash over UTF-16 code units (any odd multiplier spreads them well enough). */
const HASH_BASE = 0x01000193;

/**
 * Replaces known secrets in text and rebuilds foreign errors without them. A secret is found whole or in part
 * (any {@link MAX_FRAGMENT} characters of it) and in the forms a server or runtime may quote it in: as given,
 * URL-encoded, JSON-escaped, base64 and base64url (base64 only when the secret was encoded on its own).
 * Secrets live in a private field, so the redactor itself never shows them (JSON, inspection).
 *
 * Redact whole texts, then cut them for display: cutting first can split a secret into pieces too short to find.
 */
export class SecretRedactor {
  /** Fragment length → rolling hash of a fragment → the fragments with that hash. */
  readonly #fragments = new Map<number, Map<number, string[]>>();

  constructor(secrets: Iterable<string | undefined>) {
    for (const secret of secrets) {
      if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of encodingsOf(secret)) this.#addFragments(form, fragmentLength(secret.length));
    }
  }

  /** `text` with every secret, and every fragment of one, replaced by {@link REDACTED}. */
  redact(text: string): string {
    if (this.#fragments.size === 0 || text.length === 0) return text;
    const hits: Array<[number, number]> = [];
    for (const [length, table] of this.#fragments) {
      if (text.length < length) continue;
      const top = power(length - 1);
      let hash = 0;
      for (let i = 0; i < length; i++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
      for (let start = 0; ; start++) {
        const candidates = table.get(hash);
        if (candidates !== undefined && candidates.some((fragment) => text.startsWith(fragment, start))) hits.push([start, start + length]);
        const next = start + length;
        if (next >= text.length) break;
        hash = (Math.imul(hash - Math.imul(text.charCodeAt(start), top), HASH_BASE) + text.charCodeAt(next)) | 0;
      }
    }
    if (hits.length === 0) return text;
    hits.sort((a, b) => a[0] - b[0]);
    let out = "";
    let copied = 0;
    let open: [number, number] | null = null;
    for (const hit of hits) {
      if (open !== null && hit[0] <= open[1]) {
        open[1] = Math.max(open[1], hit[1]);
        continue;
      }
      if (open !== null) {
        out += text.slice(copied, open[0]) + REDACTED;
        copied = open[1];
      }
      open = [hit[0], hit[1]];
    }
    if (open !== null) {
      out += text.slice(copied, open[0]) + REDACTED;
      copied = open[1];
    }
    return out + text.slice(copied);
  }

  /**
   * A copy of a thrown value that carries no secret: an `Error` with the same name, message, stack, `code`
   * and (recursively) cause, each redacted. Anything else becomes its redacted string form. Other fields of
   * the original (a URL, request options) are dropped: they are where runtimes keep what they were asked to fetch.
   */
  sanitize(value: unknown, depth = 0): unknown {
    if (typeof value !== "object" || value === null) {
      return typeof value === "string" ? this.redact(value) : value;
    }
    const source = value as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown; cause?: unknown };
    if (typeof source.message !== "string") return this.redact(safeString(value));
    const cause = depth < MAX_CAUSE_DEPTH && source.cause !== undefined ? this.sanitize(source.cause, depth + 1) : undefined;
    const copy: Error & { code?: string | number } =
      cause === undefined ? new Error(this.redact(source.message)) : new Error(this.redact(source.message), { cause });
    if (typeof source.name === "string") copy.name = this.redact(source.name);
    copy.stack = typeof source.stack === "string" ? this.redact(source.stack) : `${copy.name}: ${copy.message}`;
    if (typeof source.code === "string") copy.code = this.redact(source.code);
    else if (typeof source.code === "number") copy.code = source.code;
    return copy;
  }

  #addFragments(form: string, wanted: number): void {
    const length = Math.min(wanted, form.length);
    let table = this.#fragments.get(length);
    if (table === undefined) {
      table = new Map();
      this.#fragments.set(length, table);
    }
    for (let start = 0; start + length <= form.length; start++) {
      const fragment = form.slice(start, start + length);
      const hash = hashOf(fragment);
      const list = table.get(hash);
      if (list === undefined) table.set(hash, [fragment]);
      else if (!list.includes(fragment)) list.push(fragment);
    }
  }
}

/** How many characters of a secret of `length` make a fragment worth hiding: half of it, from 4 up to 8. */
function fragmentLength(length: number): number {
  return Math.min(MAX_FRAGMENT, Math.max(MIN_SECRET_LENGTH, Math.ceil(length / 2)));
}

/** The secret as given, URL-encoded, JSON-escaped, base64 and base64url (UTF-8), without repeats. */
function encodingsOf(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  const base64 = base64Of(secret);
  if (base64 !== undefined) forms.push(base64, base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
  return [...new Set(forms)];
}

function base64Of(text: string): string | undefined {
  // btoa is on every supported runtime (Node ≥ 16, Bun, Deno, browsers); without it the plain forms still apply.
  const encode = (globalThis as { btoa?: (data: string) => string }).btoa;
  if (typeof encode !== "function") return undefined;
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return encode(binary);
}

function hashOf(fragment: string): number {
  let hash = 0;
  for (let i = 0; i < fragment.length; i++) hash = (Math.imul(hash, HASH_BASE) + fragment.charCodeAt(i)) | 0;
  return hash;
}

/** HASH_BASE^exponent in 32-bit arithmetic, the weight of the character leaving the rolling window. */
function power(exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i++) result = Math.imul(result, HASH_BASE);
  return result;
}

/** `String(value)` that cannot itself throw (objects with a throwing `toString`). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch (error) {
    return `unprintable value (${error instanceof Error ? error.name : typeof error})`;
  }
}
