// `moomem stats`: what the store holds and how it is doing on disk.

import { type Command, type CommandContext, requireNone } from "../command.ts";
import { formatBytes, formatTime } from "../output.ts";

export const statsCommand: Command = {
  name: "stats",
  summary: "count entries per status and user, bytes on disk, last write, recoveries",
  usage: "",
  options: {},
  details: [
    "Store-wide: counts cover every user. For a PostgreSQL store, on disk is what the server",
    "reports for the schema's tables and indexes; the store line never shows the password.",
    "",
    "examples:",
    "  moomem --dir ./memory stats",
    "  MOOMEM_PG_URL=postgres://app@db:5432/memory moomem stats",
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const store = await ctx.open({ readOnly: true, embeds: false });
    const s = await store.stats();
    if (ctx.out.json) {
      ctx.out.data(s);
      return;
    }
    ctx.out.pairs([
      ["store", ctx.where],
      ["entries", String(s.total)],
      ["  active", String(s.active)],
      ["  superseded", String(s.superseded)],
      ["  deleted", String(s.deleted)],
      ["  unstructured (extraction failed; see reextract)", String(s.unstructured)],
      ["users", String(s.users)],
      ["on disk", `${formatBytes(s.bytesOnDisk)} (${s.bytesOnDisk} bytes)`],
      ["last write", formatTime(s.lastWriteAt)],
      ["torn tails recovered", String(s.truncatedRecovered)],
      ["extractor", s.extractorMode],
      ["format version", String(s.formatVersion)],
    ]);
  },
};
