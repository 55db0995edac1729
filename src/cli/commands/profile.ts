// `moomem profile`: what the store currently knows about a user, slot by slot.

import type { ProfileFact } from "../../node.ts";
import { type Command, type CommandContext, USER_OPTION, requireNone, requireUser } from "../command.ts";
import { oneLine } from "../output.ts";

export const profileCommand: Command = {
  name: "profile",
  summary: "show a user's current memories: each key slot's value, then the rest by kind",
  usage: "-u <user>",
  options: { user: USER_OPTION },
  details: [
    "Only live memories count: superseded and forgotten ones are left out. Slots (keys such as",
    "home_city) come from the extractor: the default one keys common personal facts (where you",
    "live, your job, name, diet, allergies…); the rest are listed by kind.",
    "",
    "example:",
    "  moomem profile -u alice",
  ],
  async run(ctx: CommandContext): Promise<void> {
    const user = requireUser(ctx);
    requireNone(ctx);
    const store = await ctx.open({ readOnly: true, embeds: false });
    const profile = await store.profile(user);
    if (ctx.out.json) {
      ctx.out.data(profile);
      return;
    }
    const slots = Object.entries(profile.slots);
    const groups: Array<[string, ProfileFact[]]> = [
      ["facts", profile.facts],
      ["preferences", profile.preferences],
      ["events", profile.events],
      ["unstructured", profile.unstructured],
    ];
    if (slots.length === 0 && groups.every(([, list]) => list.length === 0)) {
      ctx.out.line(`${user} has no live memories`);
      return;
    }
    if (slots.length > 0) {
      ctx.out.line(ctx.out.style.bold("slots"));
      ctx.out.pairs(
        slots.map(([key, slot]) => [
          `  ${key}`,
          `${oneLine(slot.value)}${slot.conflicting === undefined ? "" : ctx.out.style.yellow(`  (also: ${slot.conflicting.map((c) => oneLine(c.content)).join(" | ")})`)}`,
        ]),
      );
    }
    for (const [name, list] of groups) {
      if (list.length === 0) continue;
      ctx.out.line(ctx.out.style.bold(name));
      for (const fact of list) ctx.out.line(`  - ${oneLine(fact.content)}`);
    }
  },
};
