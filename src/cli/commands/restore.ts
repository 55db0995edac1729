// `moomem restore`: undo a forget or a wrong supersede.

import { type Command, type CommandContext, USER_OPTION, requireOne, requireUser } from "../command.ts";
import { printEntries } from "../entry-view.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary: "undo a forget, or a wrong supersede (the entry is active again)",
  usage: "-u <user> <id>",
  options: { user: USER_OPTION },
  details: [
    "Restoring a superseded entry makes it active again, and the entry that had",
    "replaced it becomes superseded by it.",
    "",
    "example:",
    "  moomem restore -u alice 000000000001-5034",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    const id = requireOne(ctx, "the id of the entry to restore");
    const store = await ctx.open({ readOnly: false, embeds: false });
    const entry = await store.restore(user, id);
    if (ctx.out.json) {
      ctx.out.data(entry);
      return;
    }
    ctx.out.line(`restored ${entry.id} (now ${entry.status})`);
    printEntries(ctx.out, [entry]);
  },
};
