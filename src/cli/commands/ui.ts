// `moomem ui`: serve a local inspector page for the store (users, memories, history, recall playground, stats) until Ctrl-C.

import { MemoryStore } from "../../node.ts";
import { flag, stringOption, usageError } from "../args.ts";
import { type Command, type CommandContext, type Store, requireNone } from "../command.ts";
import { buildOpenOptions } from "../open-options.ts";
import { withStoreBackend } from "../store-location.ts";
import { packageVersion } from "../version.ts";

export const uiCommand: Command = {
  name: "ui",
  summary: "serve a local inspector page: users, memories, history, a recall playground, stats",
  usage: "[--port <n>] [--write]",
  options: {
    port: { type: "string", placeholder: "<n>", description: "port on 127.0.0.1 (default 0: any free port; the link shows it)" },
    write: { type: "boolean", description: "enable forget, restore and purge from the page (takes the store's writer lock)" },
  },
  details: [
    "Prints a link http://127.0.0.1:<port>/<token>/ and serves until Ctrl-C. It listens on",
    "127.0.0.1 only and opens no browser; the link carries a random access token (a new one",
    "each run), so only someone who has the link can read the page. Keep it to yourself.",
    "",
    "Read-only by default: the store is opened without the writer lock, so an agent can keep",
    "writing it, and the page shows new entries as they are written (it checks every 2 s).",
    "With --write the page can forget, restore and purge (each asks first). That needs the",
    "writer lock: if an agent holds it, moomem ui --write stops with STORE_LOCKED; while it",
    "runs, the agent cannot open the store for writing. Stop it to give the lock back.",
    "On PostgreSQL (--pg) there is no writer lock: --write writes alongside the app servers;",
    "the read-only page follows PostgreSQL writers the same way (every 2 s).",
    "",
    "examples:",
    "  moomem --dir ./memory ui",
    "  moomem --dir ./memory ui --port 4477 --write",
  ],
  async run(ctx: CommandContext): Promise<void> {
    requireNone(ctx);
    const port = parsePort(ctx);
    const writable = flag(ctx.values, "write");
    // Loaded on demand: the other commands never load the HTTP server or the page.
    const { startInspector } = await import("../../inspector/start.ts");
    const openOptions = buildOpenOptions(ctx.values, ctx.io.env, { readOnly: !writable, embeds: true });
    // A STORE_LOCKED from --write gets its advice in CLI words where every store error does (cli-errors.ts).
    // Each open gets its own backend (a PostgreSQL backend loads once); the page shows `where`, never a password.
    const open = (): Promise<Store> => MemoryStore.open(ctx.dir, withStoreBackend(ctx.location, openOptions));
    const inspector = await startInspector({ dir: ctx.where, writable, port, version: packageVersion(), open });
    if (ctx.out.json) {
      ctx.out.line(JSON.stringify({ url: inspector.url, port: inspector.port, writable, dir: ctx.where }));
    } else {
      ctx.out.line(
        `moomem ui: ${ctx.where} ${writable ? "with --write (forget, restore and purge enabled; this process holds the writer lock)" : "read-only (an agent may keep writing; new entries show up)"}`,
      );
      ctx.out.line("open this link in a browser on this machine; it carries the access token, so keep it to yourself:");
      ctx.out.line(`  ${inspector.url}`);
      ctx.out.line("press Ctrl-C to stop");
    }
    await waitForSignal();
    await inspector.close();
  },
};

function parsePort(ctx: CommandContext): number {
  const text = stringOption(ctx.values, "port");
  if (text === undefined) return 0;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) throw usageError(ctx.name, `--port must be a whole number from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

/** Resolves on the first SIGINT or SIGTERM. */
function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
