// Every moomem command, in the order `moomem --help` lists them.

import type { Command } from "../command.ts";
import { addCommand } from "./add.ts";
import { recallCommand } from "./recall.ts";
import { listCommand } from "./list.ts";
import { historyCommand } from "./history.ts";
import { profileCommand } from "./profile.ts";
import { forgetCommand } from "./forget.ts";
import { restoreCommand } from "./restore.ts";
import { statsCommand } from "./stats.ts";
import { exportCommand } from "./export.ts";
import { importCommand } from "./import.ts";
import { reembedCommand } from "./reembed.ts";
import { reextractCommand } from "./reextract.ts";
import { mcpCommand } from "./mcp.ts";
import { uiCommand } from "./ui.ts";
import { migrateCommand } from "./migrate.ts";

export const COMMANDS: readonly Command[] = [
  addCommand,
  recallCommand,
  listCommand,
  historyCommand,
  profileCommand,
  forgetCommand,
  restoreCommand,
  statsCommand,
  exportCommand,
  importCommand,
  reembedCommand,
  reextractCommand,
  mcpCommand,
  uiCommand,
  migrateCommand,
];

/** The command named `name`, if there is one. */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
