// The package version, read from package.json beside the code (src/cli or dist/cli are both two levels down).

import { readFileSync } from "node:fs";

export function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === "string" ? version : "unknown";
}
