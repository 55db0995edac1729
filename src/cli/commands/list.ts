// `moomem list`: a user's entries in the order they were stored.

import type { EntryStatus } from "../../node.ts";
import { stringOption, usageError } from "../args.ts";
import { type Command, type CommandContext, USER_OPTION, requireNone, requireUser } from "../command.ts";
import { printEntries } from "../entry-view.ts";
import { plural } from "../output.ts";

type StatusChoice = EntryStatus | "all";
const STATUS_CHOICES: readonly StatusChoice[] = ["active", "superseded", "deleted", "unstructured", "all"];

export const listCommand: Command = {
  name: "list",
  summary: "show a user's entries (every status, or one)",
  usage: "-u <user> [--status active|superseded|deleted|unstructured|all]",
  options: {
    user: USER_OPTION,
    status: { type: "string", placeholder: "<status>", description: "only entries with this status (default all)" },
  },
  details: ["A superseded entry shows the id of the entry that replaced it after an arrow.", "", "example:", "  moomem list -u alice --status superseded"],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    requireNone(ctx);
    const status = stringOption(ctx.values, "status") ?? "all";
    if (!STATUS_CHOICES.includes(status as StatusChoice)) {
      throw usageError(ctx.name, `--status must be one of ${STATUS_CHOICES.join(", ")}, got ${JSON.stringify(status)}`);
    }
    const store = await ctx.open({ readOnly: true, embeds: false });
    const entries = await store.list(user, { status: status as StatusChoice });
    if (ctx.out.json) {
      ctx.out.data(entries);
      return;
    }
    if (entries.length === 0) {
      ctx.out.line(status === "all" ? `${user} has no entries` : `${user} has no ${status} entries`);
      return;
    }
    printEntries(ctx.out, entries);
    ctx.out.line(ctx.out.style.dim(plural(entries.length, "entry", "entries")));
  },
};
