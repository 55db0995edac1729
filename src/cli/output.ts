// Everything the CLI prints: JSON for machines, aligned plain text for people (colour only on a terminal).

import type { CliIo, OutStream } from "./io.ts";

/** ANSI styling that turns into plain text when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

/** Colour only for a terminal, and never when NO_COLOR is set or TERM is dumb (https://no-color.org). */
export function colourWanted(stream: OutStream, env: Readonly<Record<string, string | undefined>>): boolean {
  return stream.isTTY === true && env["NO_COLOR"] === undefined && env["TERM"] !== "dumb";
}

export function createStyle(enabled: boolean): Style {
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      enabled && text.length > 0 ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    red: wrap(31, 39),
    cyan: wrap(36, 39),
  };
}

/** A table cell: plain text for measuring, and how to paint it. */
export interface Cell {
  text: string;
  paint?: (text: string) => string;
}

/** Where a run prints: results on stdout, notices and errors on stderr. */
export class Output {
  readonly json: boolean;
  readonly style: Style;
  readonly #io: CliIo;

  constructor(io: CliIo, json: boolean) {
    this.#io = io;
    this.json = json;
    this.style = createStyle(!json && colourWanted(io.stdout, io.env));
  }

  /** One line of human output on stdout. */
  line(text = ""): void {
    this.#io.stdout.write(text + "\n");
  }

  /** A JSON document on stdout (the whole answer of a `--json` run). */
  data(value: unknown): void {
    this.#io.stdout.write(JSON.stringify(value, null, 2) + "\n");
  }

  /** A remark for a person on stderr, kept out of stdout so pipes stay clean. */
  notice(text: string): void {
    this.#io.stderr.write(`moomem: ${text}\n`);
  }

  /** Columns padded to their widest cell; the last column is left ragged (it holds free text). */
  table(header: string[], rows: Cell[][]): void {
    const all: Cell[][] = [header.map((text) => ({ text, paint: (t: string) => this.style.dim(t) })), ...rows];
    const widths: number[] = [];
    for (const row of all) {
      row.forEach((cell, i) => {
        widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell.text));
      });
    }
    for (const row of all) {
      const parts = row.map((cell, i) => {
        const padded = i === row.length - 1 ? cell.text : cell.text + " ".repeat((widths[i] ?? 0) - displayWidth(cell.text));
        return cell.paint === undefined ? padded : cell.paint(padded);
      });
      this.line(parts.join("  ").trimEnd());
    }
  }

  /** `key  value` lines with the keys aligned. */
  pairs(rows: Array<[string, string]>): void {
    const width = Math.max(0, ...rows.map(([k]) => k.length));
    for (const [key, value] of rows) this.line(`${this.style.dim(key.padEnd(width))}  ${value}`);
  }

  /** Colours a status so superseded and deleted entries stand out. */
  status(status: string): (text: string) => string {
    switch (status) {
      case "active":
        return this.style.green;
      case "superseded":
        return this.style.yellow;
      case "deleted":
        return this.style.red;
      default:
        return this.style.cyan;
    }
  }
}

/** Free text on one table line: newlines and tabs shown as spaces. */
export function oneLine(text: string): string {
  return text.replace(/\r\n|[\r\n\t]/g, " ");
}

/** A timestamp in UTC without milliseconds, e.g. `2025-03-01T09:30:00Z`. */
export function formatTime(ms: number | null): string {
  if (ms === null) return "never";
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Bytes for people: `9.7 KiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** `1 entry`, `3 entries`. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Terminal columns a string takes: wide (CJK, fullwidth) characters count twice, so aligned columns stay aligned. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    width += isWide(cp) ? 2 : 1;
  }
  return width;
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}
