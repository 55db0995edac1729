// Types of scripts/find-chromium.mjs (plain JavaScript, so that node runs it before anything is built).

export declare const CHROMIUM_CANDIDATES: readonly string[];
export declare function findChromium(
  env?: Readonly<Record<string, string | undefined>>,
): { path: string; error?: undefined } | { path?: undefined; error: string };
