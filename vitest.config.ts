// Vitest projects: the suite on Node (fake-indexeddb) and in headless Chromium (real IndexedDB).

import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";
import { findChromium } from "./scripts/find-chromium.mjs";

// Debian's chromium, not a Playwright download: CI has no browser cache and no network for it.
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const include = ["src/**/*.test.ts", "test/**/*.test.ts"];

// CHROMIUM_PATH, or the usual places; without one the chromium project fails in its global setup with a
// one-line message saying how to get one (test/setup/chromium-missing.ts).
const chromium = findChromium();

// Timeouts are hang detectors, never speed requirements (docs/decisions.md, "Tests never depend on machine
// speed"): the slowest test takes ~10 s alone on 2 cores and up to 10× that on a loaded machine. The same
// values are given to Bun (scripts/test-all.sh) and to Deno (test/shims/vitest-on-deno.ts).
const testTimeout = 300_000;
const hookTimeout = 600_000;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include,
          testTimeout,
          hookTimeout,
          environment: "node",
          setupFiles: ["fake-indexeddb/auto"],
        },
      },
      {
        test: {
          name: "chromium",
          include,
          testTimeout,
          hookTimeout,
          // Node-only suites (real files, child processes) cannot run in a page.
          exclude: ["test/node/**", "**/node_modules/**"],
          ...(chromium.path === undefined ? { globalSetup: ["test/setup/chromium-missing.ts"] } : {}),
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: {
                executablePath: chromium.path ?? "/usr/bin/chromium",
                args: chromiumArgs,
              },
            }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
