// The files the inspector serves besides its API, read once at start: a fixed table, so no request path ever reaches the file system.

import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { MoomemError } from "../errors.ts";
import { PAGE_SHELL } from "./page-shell.ts";
import { PAGE_STYLES } from "./page-styles.ts";

export interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
}

/** Asset table keys: `""` is the document, `styles.css`, then `page/<path>.js` for each compiled page module. */
export type AssetTable = ReadonlyMap<string, Asset>;

/**
 * The page's scripts are the JavaScript tsc emits for `src/inspector/page/` (it sits next to this
 * module in `dist/inspector/page/`); the document and the stylesheet are strings compiled into
 * this package. Run from the sources (no build), the scripts are missing: that is an error that
 * says to build.
 */
export async function loadPageAssets(pageDir: string = fileURLToPath(new URL("./page/", import.meta.url))): Promise<AssetTable> {
  const table = new Map<string, Asset>();
  table.set("", { contentType: "text/html; charset=utf-8", body: Buffer.from(PAGE_SHELL, "utf8") });
  table.set("styles.css", { contentType: "text/css; charset=utf-8", body: Buffer.from(PAGE_STYLES, "utf8") });
  for (const rel of await scripts(pageDir, "")) {
    table.set(`page/${rel}`, { contentType: "text/javascript; charset=utf-8", body: await readFile(join(pageDir, rel)) });
  }
  if (!table.has("page/main.js")) {
    throw new MoomemError(
      "IO_FAILURE",
      `the inspector's page scripts are missing from ${pageDir} (no main.js); build the package (npm run build) and run moomem from dist/`,
    );
  }
  return table;
}

/** Every `.js` file under `dir` (relative paths with `/`), skipping source maps and declarations. */
async function scripts(dir: string, prefix: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(join(dir, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await scripts(dir, rel)));
    else if (entry.isFile() && /^[a-z0-9-]+\.js$/.test(entry.name)) out.push(rel);
  }
  return out;
}
