// The process streams and environment a CLI run uses, behind one small interface so runs can be driven in-process.

/** A stream the CLI writes to (process.stdout / process.stderr, a file, or a test buffer). */
export interface OutStream extends NodeJS.WritableStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Everything a run touches outside the store. */
export interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The real process streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/**
 * Writes one chunk and waits for the stream to drain when its buffer is full,
 * so a large export holds at most one buffer of output in memory.
 */
export function writeChunk(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (stream.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: unknown): void => {
      stream.off("drain", onDrain);
      stream.off("close", onClose);
      stream.off("error", onError);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onDrain = (): void => settle();
    // A destroyed stream never drains; its error (e.g. EPIPE) arrives as an "error" event or not at all.
    const onClose = (): void => settle(Object.assign(new Error("the output stream was closed"), { code: "EPIPE" }));
    const onError = (error: unknown): void => settle(error);
    stream.once("drain", onDrain);
    stream.once("close", onClose);
    stream.once("error", onError);
  });
}

/** A thrown value as a short message. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The `code` of a Node system error (`ENOENT`, `EPIPE`, …), if it has one. */
export function systemErrorCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** Reads a whole stream as text (for `add -`, which takes the text from stdin). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  stream.setEncoding("utf8");
  for await (const chunk of stream) text += typeof chunk === "string" ? chunk : String(chunk);
  return text;
}
