// Finds the Chromium that the browser suite runs in (vitest.config.ts), or says in one line how to get one.
//
// Plain JavaScript so that scripts/test-all.sh can run it with node before any test starts:
//   node scripts/find-chromium.mjs     prints the binary's path (exit 0), or the one-line help (exit 1)
// The suite never downloads a browser (CI has no network for it): it uses the system's Chromium or Chrome.

import { accessSync, constants, statSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** Where Chromium or Chrome usually lives, tried in this order when CHROMIUM_PATH is not set. */
export const CHROMIUM_CANDIDATES = [
  "/usr/bin/chromium", // Debian
  "/usr/bin/chromium-browser", // Ubuntu, Fedora
  "/snap/bin/chromium", // Ubuntu's snap
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium", // macOS: brew install --cask chromium
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/** How to get a Chromium, for the message. */
const HOW =
  "install one (Debian/Ubuntu: sudo apt-get install -y chromium; macOS: brew install --cask chromium) " + "or set CHROMIUM_PATH to a Chromium or Chrome binary";

function isExecutableFile(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium binary to use: CHROMIUM_PATH when set, else the first of {@link CHROMIUM_CANDIDATES} that exists.
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {{ path: string, error?: undefined } | { path?: undefined, error: string }}
 */
export function findChromium(env = process.env) {
  const chosen = env["CHROMIUM_PATH"];
  if (chosen !== undefined && chosen !== "") {
    if (isExecutableFile(chosen)) return { path: chosen };
    return { error: `no Chromium for the browser tests: CHROMIUM_PATH=${chosen} is not an executable file; ${HOW}.` };
  }
  const found = CHROMIUM_CANDIDATES.find(isExecutableFile);
  if (found !== undefined) return { path: found };
  return {
    error: `no Chromium for the browser tests (looked for ${CHROMIUM_CANDIDATES[0]} and ${CHROMIUM_CANDIDATES.length - 1} other usual places); ${HOW}.`,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = findChromium();
  if (result.path !== undefined) {
    console.log(result.path);
  } else {
    console.error(result.error);
    process.exitCode = 1;
  }
}
