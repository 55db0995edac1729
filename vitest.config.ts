// Vitest projects: the suite on Node (fake-indexeddb) and in headless Chromium (real IndexedDB).

import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";

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

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include,
          environment: "node",
          setupFiles: ["fake-indexeddb/auto"],
        },
      },
      {
        test: {
          name: "chromium",
          include,
          // Node-only suites (real files, child processes) cannot run in a page.
          exclude: ["test/node/**", "**/node_modules/**"],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: {
                executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
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
