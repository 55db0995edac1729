// `moomem forget`: soft-delete one entry or all of a user's (optionally purging the content from disk).

import { MoomemError, isMoomemError } from "../../node.ts";
import { flag, usageError } from "../args.ts";
import { type Command, type CommandContext, type Store, USER_OPTION, requireUser } from "../command.ts";
import { plural } from "../output.ts";

export const forgetCommand: Command = {
  name: "forget",
  summary: "forget one entry or all of a user's (undo with restore, unless purged)",
  usage: "-u <user> (<id> | --all) [--purge]",
  options: {
    user: USER_OPTION,
    all: { type: "boolean", description: "forget every entry of the user" },
    purge: { type: "boolean", description: "also erase the content from disk at the next compaction (cannot be restored)" },
  },
  details: [
    "Forgotten entries leave recall at once and stay on disk with status deleted,",
    "so `moomem restore` can bring them back. With --purge only a content-free",
    "tombstone remains once the store is closed.",
    "",
    "examples:",
    "  moomem forget -u alice 000000000003-9f2c",
    "  moomem forget -u alice --all --purge",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    const all = flag(ctx.values, "all");
    const purge = flag(ctx.values, "purge");
    if (all && ctx.positionals.length > 0) throw usageError(ctx.name, "forget takes an entry id or --all, not both");
    if (!all && ctx.positionals.length !== 1) {
      throw usageError(
        ctx.name,
        ctx.positionals.length === 0 ? "forget needs an entry id, or --all" : `forget takes one entry id, got ${ctx.positionals.length}`,
      );
    }
    const id = ctx.positionals[0];
    const store = await ctx.open({ readOnly: false, embeds: false });
    const forgotten = await store.forget(user, id === undefined ? { all: true } : { id }, purge ? { purge: true } : undefined);
    // The store's forget answers 0 for an id the user does not have; restore and history call that bad
    // input (exit 2), so the CLI does too, in their words. An entry already forgotten stays a no-op.
    if (forgotten === 0 && id !== undefined) await requireKnown(store, user, id);
    if (ctx.out.json) {
      ctx.out.data({ forgotten, purged: purge });
      return;
    }
    if (forgotten === 0) {
      ctx.out.line(id === undefined ? `${user} has nothing left to forget` : `nothing forgotten: ${id} of ${user} is already forgotten`);
      return;
    }
    ctx.out.line(`forgot ${plural(forgotten, "entry", "entries")} of ${user}${purge ? " (content purged)" : ""}`);
  },
};

/** Throws what `history` says about an id the user has no entry for, as forget's own. */
async function requireKnown(store: Store, user: string, id: string): Promise<void> {
  try {
    await store.history(user, id);
  } catch (error) {
    if (isMoomemError(error, "INVALID_ARGUMENT")) throw new MoomemError(error.code, error.message.replace(/^history:/, "forget:"), { cause: error });
    throw error;
  }
}
