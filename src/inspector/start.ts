// Starts the inspector: open the store (read-only unless writable), serve it on 127.0.0.1, and stop both together.

import type { MemoryStore } from "../index.ts";
import { startInspectorServer, type RunningInspector } from "./server.ts";
import { StoreHolder } from "./store-holder.ts";
import { loadPageAssets } from "./page-assets.ts";

export interface InspectorOptions {
  /** The store folder (shown on the page; its files are watched for new writes when read-only). */
  dir: string;
  /** Open with the writer lock and allow forget / restore / purge from the page. */
  writable: boolean;
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The moomem version the page shows. */
  version: string;
  /** Opens the store (the CLI passes `MemoryStore.open(dir, { readOnly: !writable, … })`); called again to catch up with a writer. */
  open: () => Promise<MemoryStore>;
  /** Access token (default: fresh random). */
  token?: string;
}

/** A running inspector; `close()` stops the server and closes the store. */
export type Inspector = RunningInspector;

/** Opens the store and serves it; rejects (with nothing left open) when the store or the port cannot be had. */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  // The page is checked first, so a missing build fails before the store is opened or a lock taken.
  const assets = await loadPageAssets();
  const holder = await StoreHolder.open({ dir: options.dir, writable: options.writable, open: options.open });
  let server: RunningInspector;
  try {
    const serverOptions: Parameters<typeof startInspectorServer>[0] = { holder, port: options.port, version: options.version, assets };
    if (options.token !== undefined) serverOptions.token = options.token;
    server = await startInspectorServer(serverOptions);
  } catch (error) {
    await holder.close();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    token: server.token,
    close: async () => {
      await server.close();
      await holder.close();
    },
  };
}
