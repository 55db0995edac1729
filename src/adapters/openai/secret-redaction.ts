// Keeps API keys and other secrets out of every message, error and cause the OpenAI adapters produce.

/** Secrets shorter than this are not real credentials (e.g. Ollama's placeholder key); redacting them would garble text. */
const MIN_SECRET_LENGTH = 4;

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Cause chains deeper than this are cut; no real error nests further. */
const MAX_CAUSE_DEPTH = 5;

/**
 * Replaces known secrets in text and rebuilds foreign errors without them.
 * Secrets live in a private field, so the redactor itself never shows them (JSON, inspection).
 */
export class SecretRedactor {
  readonly #secrets: string[];

  constructor(secrets: Iterable<string | undefined>) {
    const kept = new Set<string>();
    for (const secret of secrets) {
      if (typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH) kept.add(secret);
    }
    // Longest first, so a secret containing another is replaced whole.
    this.#secrets = [...kept].sort((a, b) => b.length - a.length);
  }

  /** `text` with every secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  /**
   * A copy of a thrown value that carries no secret: an `Error` with the same name, message, stack, `code`
   * and (recursively) cause, each redacted. Anything else becomes its redacted string form.
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
}

/** `String(value)` that cannot itself throw (objects with a throwing `toString`). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch (error) {
    return `unprintable value (${error instanceof Error ? error.name : typeof error})`;
  }
}
