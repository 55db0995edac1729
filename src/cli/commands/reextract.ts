// `moomem reextract`: run the extractor again over entries a failed extraction left unstructured.

import { type Command, type CommandContext, USER_OPTION, requireNone } from "../command.ts";
import { stringOption } from "../args.ts";

export const reextractCommand: Command = {
  name: "reextract",
  summary: "turn unstructured entries (left by a failed extraction) into facts",
  usage: "[-u <user>] --llm",
  options: { user: { ...USER_OPTION, description: "only this user's entries (default: every user)" } },
  details: [
    "When the model was down, add() kept the text whole as an unstructured entry.",
    "Once the model works again, this extracts facts from those entries, dedups and",
    "judges them as a fresh add, and marks each raw entry superseded by its facts",
    "(or deleted when it held none). Entries whose extraction fails again stay.",
    "Use it with --llm (and the --embed the store was made with).",
    "",
    "example:",
    "  moomem --llm reextract -u alice",
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const user = stringOption(ctx.values, "user");
    const store = await ctx.open({ readOnly: false, embeds: true });
    const summary = await store.reextract(user);
    if (ctx.out.json) {
      ctx.out.data(summary);
      return;
    }
    ctx.out.line(
      `looked at ${summary.processed} unstructured entr${summary.processed === 1 ? "y" : "ies"}: ${summary.converted} converted, ${summary.failed} failed again`,
    );
    for (const fact of summary.facts) ctx.out.line(`  ${fact.action.padEnd(9)} ${fact.id}  ${fact.content}`);
  },
};
