// Argument parsing for every command: global flags anywhere on the line, one command word, node:util parseArgs for the rest.

import { parseArgs } from "node:util";
import { MoomemError } from "../node.ts";
import { errorMessage } from "./io.ts";

/** One option of a command, as parseArgs needs it plus what the help shows. */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  readonly multiple?: boolean;
  /** Placeholder for the value in help, e.g. `<user>`. */
  readonly placeholder?: string;
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** Option values as parseArgs returns them. */
export type OptionValues = Readonly<Record<string, string | boolean | Array<string | boolean> | undefined>>;

/** Options every command accepts. */
export const GLOBAL_OPTIONS: OptionSpecs = {
  dir: { type: "string", placeholder: "<folder>", description: "where the store lives (default ./memory; its files go in <folder>/moomem/)" },
  json: { type: "boolean", description: "print machine-readable JSON on stdout" },
  help: { type: "boolean", short: "h", description: "show help for moomem or for one command" },
  version: { type: "boolean", description: "print the moomem version" },
};

/** The command word and the arguments around it. */
export interface SplitArgs {
  command: string | undefined;
  rest: string[];
}

/**
 * Finds the command word: the first argument that is neither an option nor the
 * value of a global option taking one. Global flags may come before or after it.
 */
export function splitCommand(argv: readonly string[], valued: OptionSpecs): SplitArgs {
  const takesValue = new Set<string>();
  for (const [name, spec] of Object.entries(valued)) {
    if (spec.type !== "string") continue;
    takesValue.add(`--${name}`);
    if (spec.short !== undefined) takesValue.add(`-${spec.short}`);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (takesValue.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") continue;
    return { command: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { command: undefined, rest: [...argv] };
}

/** Parsed arguments of one command. */
export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

/** Parses `args` strictly against `specs`; unknown or malformed options are usage errors naming the command. */
export function parseCommandArgs(args: readonly string[], specs: OptionSpecs, command: string | undefined): ParsedArgs {
  const config: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const option: { type: "string" | "boolean"; short?: string; multiple?: boolean } = { type: spec.type };
    if (spec.short !== undefined) option.short = spec.short;
    if (spec.multiple === true) option.multiple = true;
    config[name] = option;
  }
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: config, allowPositionals: true, strict: true });
    return { values: values, positionals };
  } catch (error) {
    // parseArgs reports ERR_PARSE_ARGS_* TypeErrors: bad input, not a crash.
    const unknown = /^Unknown option '([^']+)'/.exec(errorMessage(error));
    if (unknown !== null) {
      const where = command === undefined ? "moomem" : `moomem ${command}`;
      throw usageError(command, `${where} has no option ${unknown[1]}; text starting with "-" goes after "--"`);
    }
    throw usageError(command, parseArgsMessage(errorMessage(error), specs));
  }
}

/**
 * parseArgs's other complaints in one line, as every CLI error is: a missing value, or a value that
 * starts with "-" (taken for an option: `-k -1`), which parseArgs explains over three lines.
 */
function parseArgsMessage(message: string, specs: OptionSpecs): string {
  const missing = /^Option '([^']+) <value>' argument missing/.exec(message);
  if (missing !== null) return `${missing[1]} needs a value`;
  const ambiguous = /^Option '(-[^']+)' argument is ambiguous/.exec(message);
  if (ambiguous !== null) {
    const given = ambiguous[1]!;
    const entry = Object.entries(specs).find(([name, spec]) => given === `--${name}` || (spec.short !== undefined && given === `-${spec.short}`));
    if (entry !== undefined) {
      const [name, spec] = entry;
      const names = spec.short === undefined ? `--${name}` : `-${spec.short}, --${name}`;
      return `${names} needs a value; write one starting with "-" as --${name}=<value>`;
    }
  }
  return message.split("\n")[0]!.replace(/\.$/, "");
}

/** A usage error (exit 2) that points at the right help page. */
export function usageError(command: string | undefined, message: string): MoomemError {
  const help = command === undefined ? "moomem --help" : `moomem ${command} --help`;
  return new MoomemError("INVALID_ARGUMENT", `${message} (see ${help})`);
}

/** The value of a string option, or undefined; the last one wins when it was given twice. */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  if (Array.isArray(value)) {
    const last = value[value.length - 1];
    return typeof last === "string" ? last : undefined;
  }
  return typeof value === "string" ? value : undefined;
}

/** Every value of a repeatable string option. */
export function stringList(values: OptionValues, name: string): string[] {
  const value = values[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
}

/** True when a boolean flag was given. */
export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}
