// One CLI run: parse, dispatch to the command, close the store, and map the outcome to an exit status.

import { MemoryStore, MoomemError, isMoomemError } from "../node.ts";
import { GLOBAL_OPTIONS, type OptionSpecs, flag, parseCommandArgs, splitCommand, usageError } from "./args.ts";
import type { CommandContext, Store } from "./command.ts";
import { COMMANDS, findCommand } from "./commands/registry.ts";
import { forCli, type CliErrorContext } from "./cli-errors.ts";
import { Interrupted } from "./interrupt.ts";
import { commandHelp, toolHelp } from "./help.ts";
import { type CliIo, errorMessage } from "./io.ts";
import { OPEN_OPTIONS, buildOpenOptions, type OpenIntent } from "./open-options.ts";
import { Output } from "./output.ts";
import { STORE_OPTIONS, maskSecrets, resolveStoreLocation, storePath, withStoreBackend, type StoreLocation } from "./store-location.ts";
import { tornTailNotice } from "./torn-tail-notice.ts";
import { packageVersion } from "./version.ts";

/** Exit statuses (README, "The CLI"; docs/decisions.md, "The CLI"). */
export const EXIT_OK = 0;
export const EXIT_STORE_ERROR = 1;
export const EXIT_USAGE = 2;

/** Runs `moomem <argv…>` and resolves to the exit status; never rejects. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const globals: OptionSpecs = { ...GLOBAL_OPTIONS, ...STORE_OPTIONS, ...OPEN_OPTIONS };
  let store: Store | undefined;
  let location: StoreLocation | undefined;
  let out = new Output(io, false);
  let status = EXIT_OK;
  const context: CliErrorContext = { embed: false };
  try {
    const { command: name, rest } = splitCommand(argv, globals);
    if (name === "help") {
      const topic = rest.find((a) => !a.startsWith("-"));
      const command = topic === undefined ? undefined : findCommand(topic);
      if (topic !== undefined && command === undefined) throw unknownCommand(topic);
      io.stdout.write(command === undefined ? toolHelp(COMMANDS, globals) : commandHelp(command, globals));
      return EXIT_OK;
    }
    const command = name === undefined ? undefined : findCommand(name);
    if (name !== undefined && command === undefined) throw unknownCommand(name);
    const { values, positionals } = parseCommandArgs(rest, command === undefined ? globals : { ...globals, ...command.options }, command?.name);
    out = new Output(io, flag(values, "json"));
    context.embed = flag(values, "embed");
    if (flag(values, "help")) {
      io.stdout.write(command === undefined ? toolHelp(COMMANDS, globals) : commandHelp(command, globals));
      return EXIT_OK;
    }
    if (flag(values, "version")) {
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT_OK;
    }
    if (command === undefined) {
      if (positionals.length > 0) throw unknownCommand(positionals[0]!);
      io.stderr.write(toolHelp(COMMANDS, globals));
      return EXIT_USAGE;
    }
    context.command = command.name;
    const where = resolveStoreLocation(values, io.env, command.name);
    location = where;
    context.postgres = where.kind === "postgres";
    const ctx: CommandContext = {
      name: command.name,
      values,
      positionals,
      dir: storePath(where),
      location: where,
      where: where.where,
      io,
      out,
      open: async (intent: OpenIntent) => {
        if (store !== undefined) return store;
        store = await MemoryStore.open(storePath(where), withStoreBackend(where, buildOpenOptions(values, io.env, intent)));
        // A write lost to a crash (or damage) is said out loud, once per open that finds it.
        for (const tail of (await store.stats()).tornTails) out.notice(tornTailNotice(tail, intent.readOnly));
        if (intent.readOnly) await noticeEmptyStore(store, where, out);
        return store;
      },
    };
    await command.run(ctx);
  } catch (error) {
    status = report(io, forCli(error, context), location);
  } finally {
    if (store !== undefined) {
      try {
        await store.close();
      } catch (error) {
        // The command's own result stands; a failed close (e.g. compaction hit a full disk) is still a store error.
        const closeStatus = report(io, forCli(error, context), location);
        if (status === EXIT_OK) status = closeStatus;
      }
    }
  }
  return status;
}

/** A read on a folder that holds no store is almost always a wrong --dir: say so, without failing the read. */
async function noticeEmptyStore(store: Store, where: StoreLocation, out: Output): Promise<void> {
  const { total, bytesOnDisk } = await store.stats();
  if (total !== 0 || bytesOnDisk !== 0) return;
  out.notice(
    where.kind === "folder"
      ? `no store in ${where.dir} yet (nothing was ever added there); pass --dir <folder> to use another one`
      : `no store in ${where.where} yet (nothing was ever added there); pass --pg-schema <name> to use another schema`,
  );
}

function unknownCommand(name: string): MoomemError {
  return usageError(undefined, `unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.map((c) => c.name).join(", ")}`);
}

/**
 * Prints `moomem: <CODE>: <message>` and returns the exit status for it. The PostgreSQL password is
 * masked here too, whatever produced the message (the backend masks its own already).
 */
export function report(io: CliIo, error: unknown, location?: StoreLocation): number {
  if (error instanceof Interrupted) {
    io.stderr.write(`moomem: INTERRUPTED: ${maskSecrets(location, error.message)}\n`);
    return error.status;
  }
  if (isMoomemError(error)) {
    io.stderr.write(`moomem: ${error.code}: ${maskSecrets(location, error.message)}\n`);
    return error.code === "INVALID_ARGUMENT" || error.code === "INVALID_USER_ID" ? EXIT_USAGE : EXIT_STORE_ERROR;
  }
  // Not a moomem failure: a bug or an unexpected system error. Keep the stack; it is what a bug report needs.
  const detail = error instanceof Error && error.stack !== undefined ? error.stack : errorMessage(error);
  io.stderr.write(`moomem: INTERNAL: ${maskSecrets(location, detail)}\n`);
  return EXIT_STORE_ERROR;
}
