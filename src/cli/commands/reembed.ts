// `moomem reembed`: recompute every vector with the embedder the flags select (after switching embedders).

import { type Command, type CommandContext, requireNone } from "../command.ts";

export const reembedCommand: Command = {
  name: "reembed",
  summary: "recompute every stored vector with the selected embedder",
  usage: "",
  options: {},
  details: [
    "A store remembers which embedder made its vectors and refuses another one",
    "(EMBEDDER_MISMATCH) for the commands that compute vectors. After changing",
    "embedders, run this once to recompute the vectors; nothing else about the",
    "entries changes.",
    "",
    "examples:",
    "  moomem --embed reembed     # to the model MOOMEM_EMBED_* names",
    "  moomem reembed             # back to the built-in embedder",
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const store = await ctx.open({ readOnly: false, embeds: true, reembed: true });
    const { total } = await store.stats();
    const embedder = store.embedderIdentity;
    if (ctx.out.json) ctx.out.data({ entries: total, embedder });
    else ctx.out.line(`${total} entries now hold vectors of ${embedder.id} (${embedder.dim} dims)`);
  },
};
