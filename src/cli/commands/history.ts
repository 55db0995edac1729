// `moomem history`: the supersede chain through one entry, oldest first.

import { type Command, type CommandContext, USER_OPTION, requireOne, requireUser } from "../command.ts";
import { printEntries } from "../entry-view.ts";

export const historyCommand: Command = {
  name: "history",
  summary: "show what an entry replaced and what replaced it, oldest first",
  usage: "-u <user> <id>",
  options: { user: USER_OPTION },
  details: [
    "The entry you asked about is marked with *; an arrow names the entry that replaced one.",
    "",
    "example:",
    "  moomem history -u alice 000000000002-71f0",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    const id = requireOne(ctx, "the id of an entry");
    const store = await ctx.open({ readOnly: true, embeds: false });
    const chain = await store.history(user, id);
    if (ctx.out.json) {
      ctx.out.data(chain);
      return;
    }
    printEntries(ctx.out, chain, id);
    for (const entry of chain) {
      const reason = entry.lifecycle?.conflictReason;
      if (reason !== undefined) ctx.out.line(ctx.out.style.dim(`${entry.id} replaced its predecessor because: ${reason}`));
    }
  },
};
