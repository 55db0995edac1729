// Lint rules: typescript-eslint's recommended set, no empty catch, and no Node built-ins in the runtime-neutral core.

import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

// Node built-ins, with and without the node: prefix, so `import "fs"` cannot sneak in either.
const NODE_BUILTINS = [
  "assert", "async_hooks", "buffer", "child_process", "cluster", "crypto", "dgram", "dns", "events",
  "fs", "fs/promises", "http", "http2", "https", "module", "net", "os", "path", "perf_hooks", "process",
  "readline", "stream", "string_decoder", "timers", "tls", "tty", "url", "util", "v8", "vm",
  "worker_threads", "zlib",
];

const noNodeImports = {
  "no-restricted-imports": [
    "error",
    {
      paths: NODE_BUILTINS.map((name) => ({
        name,
        message: "The core runs in browsers too: keep Node built-ins in src/node.ts, src/cli/, src/mcp/ or the Node-only persistence files.",
      })),
      patterns: [
        {
          group: ["node:*"],
          message: "The core runs in browsers too: keep node: imports in src/node.ts, src/cli/, src/mcp/ or the Node-only persistence files.",
        },
      ],
    },
  ],
  // Globals that exist only on Node-like runtimes; reaching them at import time breaks the browser build.
  "no-restricted-globals": [
    "error",
    { name: "process", message: "Not in browsers: pass configuration in, or read it in src/node.ts / src/cli/." },
    { name: "Buffer", message: "Not in browsers: use Uint8Array / TextEncoder." },
    { name: "__dirname", message: "Not in ESM nor browsers." },
    { name: "__filename", message: "Not in ESM nor browsers." },
    { name: "require", message: "ESM only: use import." },
  ],
};

// Files allowed to use Node: the Node entry, the CLI, the MCP server, Node-only backends, Node-only tests, tooling.
const NODE_ONLY = [
  "src/node.ts",
  "src/cli/**",
  "src/mcp/**",
  // The inspector's server (its page, under src/inspector/page/, runs in a browser and stays under the core rules).
  "src/inspector/*.ts",
  "src/persistence/file/node-*.ts",
  "src/persistence/file/file-backend.ts",
  "src/persistence/file/file-lock.ts",
  "test/node/**",
  "test/shims/**",
];

export default defineConfig(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", ".vitest-attachments/**"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      "no-empty": ["error", { allowEmptyCatch: false }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "all", caughtErrorsIgnorePattern: "^_" }],
    },
  },
  {
    // The runtime-neutral core, and the shared suite that must run unchanged in Chromium, Bun and Deno.
    files: ["src/**/*.ts", "test/**/*.ts"],
    ignores: NODE_ONLY,
    rules: noNodeImports,
  },
  {
    // Tooling and config files run on Node.
    files: ["*.js", "*.mjs", "*.ts", "scripts/**", "bench/**", "eval/**", "examples/**"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly" },
    },
  },
);
