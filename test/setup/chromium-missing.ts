// globalSetup of the chromium project when no Chromium was found (vitest.config.ts): fail with one line
// that says what is missing and how to get it, instead of Playwright's launch stack trace.

import { findChromium } from "../../scripts/find-chromium.mjs";

export default function setup(): void {
  const { error } = findChromium();
  if (error === undefined) return;
  // No stack: the message is the whole story.
  const failure = new Error(error);
  failure.stack = `Error: ${error}`;
  throw failure;
}
