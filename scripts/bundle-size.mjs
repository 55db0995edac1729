// Prints the browser bundle's size (tree-shaken, minified; raw, gzip and brotli) for the README runtime table.
//
// Bundles from src/ with esbuild for the browser platform, so it also proves the browser entry pulls in
// no node: module (esbuild fails on one). Usage: node scripts/bundle-size.mjs [--json]

import { build } from "esbuild";
import { brotliCompressSync, gzipSync, constants } from "node:zlib";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

// What an app typically imports, and everything the entry exports.
const cases = [
  { name: "moomem/browser: { MemoryStore }", code: 'export { MemoryStore } from "./src/browser.ts";' },
  { name: "moomem/browser: everything", code: 'export * from "./src/browser.ts";' },
  { name: 'moomem: { MemoryStore } (":memory:" only)', code: 'export { MemoryStore } from "./src/index.ts";' },
  { name: "moomem/openai: everything", code: 'export * from "./src/openai.ts";' },
];

const rows = [];
for (const c of cases) {
  const result = await build({
    stdin: { contents: c.code, resolveDir: root, sourcefile: "entry.ts", loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: "error",
  });
  const bytes = result.outputFiles[0].contents;
  const output = Object.values(result.metafile.outputs)[0];
  const inputs = Object.entries(output?.inputs ?? {})
    .map(([file, info]) => ({ file, bytes: info.bytesInOutput }))
    .filter((i) => i.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  rows.push({
    name: c.name,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    modules: inputs.length,
    largest: inputs.slice(0, 5),
  });
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log("bundle (esbuild, browser, esm, minified, tree-shaken)".padEnd(48), "raw".padStart(10), "gzip".padStart(10), "brotli".padStart(10), " modules");
  for (const r of rows) {
    console.log(r.name.padEnd(48), kb(r.raw).padStart(10), kb(r.gzip).padStart(10), kb(r.brotli).padStart(10), String(r.modules).padStart(8));
  }
  const main = rows[0];
  console.log(`\nlargest modules in "${main.name}" (minified bytes):`);
  for (const i of main.largest) console.log(`  ${String(i.bytes).padStart(7)}  ${i.file}`);
}
