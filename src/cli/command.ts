// What a command is (name, options, help, run) and the checks most commands share.

import { MemoryStore } from "../node.ts";
import { type OptionSpec, type OptionSpecs, type OptionValues, stringOption, usageError } from "./args.ts";
import type { CliIo } from "./io.ts";
import type { OpenIntent } from "./open-options.ts";
import type { Output } from "./output.ts";
import type { StoreLocation } from "./store-location.ts";

/** An open store, as `MemoryStore.open` resolves it. */
export type Store = Awaited<ReturnType<typeof MemoryStore.open>>;

/** What a command gets to work with. */
export interface CommandContext {
  readonly name: string;
  readonly values: OptionValues;
  readonly positionals: readonly string[];
  /** The store folder (`--dir`, default `./memory`); for a PostgreSQL store, the same as `where`. */
  readonly dir: string;
  /** Where the store lives: a folder, or a PostgreSQL schema (`--pg`, `MOOMEM_PG_URL`). */
  readonly location: StoreLocation;
  /** The store's location as messages print it: the folder, or the PostgreSQL location without its password. */
  readonly where: string;
  readonly io: CliIo;
  readonly out: Output;
  /** Opens the store once; the runner closes it after the command. */
  open(intent: OpenIntent): Promise<Store>;
}

/** One `moomem <name>` command. */
export interface Command {
  readonly name: string;
  /** One line for `moomem --help`. */
  readonly summary: string;
  /** Arguments after the command name, e.g. `-u <user> <text…>`. */
  readonly usage: string;
  readonly options: OptionSpecs;
  /** More help lines: details and examples. */
  readonly details: readonly string[];
  run(ctx: CommandContext): Promise<void>;
}

/** The `-u <user>` option most commands take. */
export const USER_OPTION: OptionSpec = {
  type: "string",
  short: "u",
  placeholder: "<user>",
  description: "the user whose memories to use (1-64 of A-Z a-z 0-9 _ . -)",
};

/** The user id of `-u`, required. The store checks its characters. */
export function requireUser(ctx: CommandContext): string {
  const user = stringOption(ctx.values, "user");
  if (user === undefined) throw usageError(ctx.name, `${ctx.name} needs -u <user>`);
  return user;
}

/** The free text made of every positional argument (`add -u a I like tea` → "I like tea"). */
export function requireText(ctx: CommandContext, what: string): string {
  if (ctx.positionals.length === 0) throw usageError(ctx.name, `${ctx.name} needs ${what}`);
  return ctx.positionals.join(" ");
}

/** Exactly one positional argument, e.g. an entry id. */
export function requireOne(ctx: CommandContext, what: string): string {
  if (ctx.positionals.length === 0) throw usageError(ctx.name, `${ctx.name} needs ${what}`);
  if (ctx.positionals.length > 1) {
    throw usageError(ctx.name, `${ctx.name} takes one ${what}, got ${ctx.positionals.length}: ${ctx.positionals.map((p) => JSON.stringify(p)).join(" ")}`);
  }
  return ctx.positionals[0]!;
}

/** Rejects positional arguments a command does not take. */
export function requireNone(ctx: CommandContext): void {
  if (ctx.positionals.length > 0) {
    throw usageError(ctx.name, `${ctx.name} takes no arguments besides options, got ${ctx.positionals.map((p) => JSON.stringify(p)).join(" ")}`);
  }
}
