// Store errors in CLI words: the store's advice names API options ({ readOnly: true }, { reembed: true });
// a CLI user needs the flags and commands that do the same (README, "The CLI").

import { MoomemError, isMoomemError, type MoomemErrorCode } from "../node.ts";

/** What the CLI run knew when it failed. */
export interface CliErrorContext {
  /** `--embed` was given. */
  embed: boolean;
  /** The command that ran, once known: some give their own advice. */
  command?: string;
  /** The store is a PostgreSQL one (`--pg`, `MOOMEM_PG_URL`): no writer lock, one writing process at a time. */
  postgres?: boolean;
}

/** The commands that only read, which the CLI runs without the writer lock. */
const READING = "recall, list, history, profile, stats, export";
/** The commands that write, which need the writer lock. */
const WRITING = "add, forget, restore, import, reembed or reextract";
/** The commands that never compute a vector, which open any store without --embed. */
const NO_VECTORS = "list, history, profile, stats, export, forget and restore";

/** An options object (`{ readOnly: true }`, `{ reembed: true }`) or an option's name: advice for API callers. */
const API_NOTATION = /\{ *\w+(: [^}]*)? *\}|\breadOnly\b|\breembed: |\bsetup\(\)/;

/** Codes whose messages carry API advice somewhere in the store. */
const TRANSLATED: ReadonlySet<MoomemErrorCode> = new Set(["STORE_LOCKED", "EMBEDDER_MISMATCH", "READ_ONLY", "IO_FAILURE", "MISSING_DEPENDENCY"]);

/**
 * The error as a CLI user should read it: the store's "what happened" kept, its API advice (the
 * clauses after the first that name an option) replaced by the CLI's. Other errors pass unchanged.
 */
export function forCli(error: unknown, context: CliErrorContext): unknown {
  if (!isMoomemError(error) || !TRANSLATED.has(error.code)) return error;
  const [first = "", ...rest] = error.message.split("; ");
  const dropped = rest.filter((clause) => API_NOTATION.test(clause));
  const kept = [first.replace(/with \{ *readOnly: true *\}/g, "read-only"), ...rest.filter((clause) => !API_NOTATION.test(clause))];
  const advice = adviceFor(error.code, dropped.join("; "), context);
  if (advice === undefined && dropped.length === 0 && kept[0] === first) return error;
  return new MoomemError(error.code, [...kept, ...(advice === undefined ? [] : [advice])].join("; "), { cause: error });
}

function adviceFor(code: MoomemErrorCode, dropped: string, context: CliErrorContext): string | undefined {
  switch (code) {
    case "STORE_LOCKED":
      if (context.postgres === true) {
        // PostgreSQL has no writer lock: the latest opener writes, and fenced this run (docs/postgres.md, "Consistency today").
        return "another process opened this PostgreSQL store for writing while this command ran (one writing process at a time, for now): run the command again once it is done";
      }
      // Only `ui --write` takes the lock in `ui` (the read-only page never does).
      if (context.command === "ui") {
        return "moomem ui --write needs the writer lock: stop the process writing the store first, or run moomem ui without --write to inspect it read-only while it keeps writing";
      }
      return `reading commands (${READING}) work while that process runs; stop it before ${WRITING}`;
    case "EMBEDDER_MISMATCH":
      return context.embed
        ? "--embed selects another model than the one that made this store: run without --embed if the store was made without it, or with the MOOMEM_EMBED_* settings it was made with; " +
            `or run \`moomem --embed reembed\` once to recompute every vector with the new model (${NO_VECTORS} need no --embed)`
        : "this command computes vectors, and without --embed it uses the built-in embedder: pass --embed with the MOOMEM_EMBED_* settings the store was made with, " +
            `or run \`moomem reembed\` once to recompute every vector with the built-in embedder (${NO_VECTORS} need no --embed)`;
    case "READ_ONLY":
      return dropped === "" ? undefined : `only ${WRITING} open the store for writing`;
    case "MISSING_DEPENDENCY":
      // The backend's message also offers API options ({ pool }, { client }); a CLI user installs the package.
      if (dropped === "") return undefined;
      return `--pg needs the package pg next to moomem: ${/npm i pg@\S+/.exec(dropped)?.[0] ?? "npm i pg"} (or run npx -p moomem -p pg moomem …)`;
    case "IO_FAILURE":
      if (/setup\(\)/.test(dropped)) return "run `moomem migrate` with the same --pg (a role that may create tables), then this command again";
      return /read-only/.test(dropped) ? `the file system is read-only: reading commands (${READING}) still work` : undefined;
    default:
      return undefined;
  }
}
