// Lint rules: typescript-eslint's recommended set, type-aware promise and throw rules on src/, no empty catch, no Node built-ins in the runtime-neutral core,
// and the faces (CLI, MCP, AI SDK tools, inspector, …) on the public surface only.

import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

// Node built-ins, with and without the node: prefix, so `import "fs"` cannot sneak in either.
const NODE_BUILTINS = [
  "assert",
  "async_hooks",
  "buffer",
  "child_process",
  "cluster",
  "crypto",
  "dgram",
  "dns",
  "events",
  "fs",
  "fs/promises",
  "http",
  "http2",
  "https",
  "module",
  "net",
  "os",
  "path",
  "perf_hooks",
  "process",
  "readline",
  "stream",
  "string_decoder",
  "timers",
  "tls",
  "tty",
  "url",
  "util",
  "v8",
  "vm",
  "worker_threads",
  "zlib",
];

const nodeImportPaths = NODE_BUILTINS.map((name) => ({
  name,
  message: "The core runs in browsers too: keep Node built-ins in src/node.ts, src/cli/, src/mcp/ or the Node-only persistence files.",
}));
const nodeImportPattern = {
  group: ["node:*"],
  message: "The core runs in browsers too: keep node: imports in src/node.ts, src/cli/, src/mcp/ or the Node-only persistence files.",
};

// The faces (CLI, MCP, AI SDK tools, prompt blocks, the inspector, the OpenAI adapter) build on the public
// surface only: the entries (index.ts, node.ts, openai.ts), types.ts, errors.ts, validation/, each other,
// text/context-markers.ts (exported as is) and embedding/stored-embedder.ts (a plug-in by the public Embedder
// interface, which only the CLI uses). The rooms behind MemoryStore can then change freely.
const publicSurfacePattern = {
  regex: "^(\\.\\./)+((store|state|ingest|recall|transfer|persistence|indexes|fusion)/|embedding/(?!stored-embedder\\.ts$)|text/(?!context-markers\\.ts$))",
  message:
    'Faces use the public surface only: import from the entries (index.ts, node.ts), types.ts, errors.ts or validation/ (docs/architecture.md, "Where to add things").',
};

const noNodeImports = {
  "no-restricted-imports": ["error", { paths: nodeImportPaths, patterns: [nodeImportPattern] }],
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

// The faces: those in the runtime-neutral core, and those on Node (which are in NODE_ONLY too).
const CORE_FACES = ["src/integrations/**", "src/context/**", "src/inspector/page/**", "src/adapters/**"];
const NODE_FACES = ["src/cli/**", "src/mcp/**", "src/inspector/*.ts"];

export default defineConfig(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", ".vitest-attachments/**"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      "no-empty": ["error", { allowEmptyCatch: false }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "all", caughtErrorsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Type-aware rules on the library's own code: a promise is awaited, handled or returned, never dropped
    // or passed where a plain value is expected; only Error objects are thrown or rejected.
    files: ["src/**/*.ts"],
    ignores: ["**/*.test.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      // A caught value (typed unknown) may be thrown or rejected again as it came.
      "@typescript-eslint/only-throw-error": ["error", { allowThrowingUnknown: true }],
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // The runtime-neutral core, and the shared suite that must run unchanged in Chromium, Bun and Deno.
    files: ["src/**/*.ts", "test/**/*.ts"],
    ignores: NODE_ONLY,
    rules: noNodeImports,
  },
  {
    // Faces in the runtime-neutral core: no Node built-ins, and the public surface only.
    files: CORE_FACES,
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", { paths: nodeImportPaths, patterns: [nodeImportPattern, publicSurfacePattern] }] },
  },
  {
    // Faces that run on Node: the public surface only.
    files: NODE_FACES,
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [publicSurfacePattern] }] },
  },
  {
    // Tooling and config files run on Node.
    files: ["*.js", "*.mjs", "*.ts", "scripts/**", "bench/**", "eval/**", "examples/**"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly" },
    },
  },
);
