// The inspector's access token: 256 random bits per run, compared in constant time.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh token: 32 random bytes as base64url (43 characters, safe in a URL path and a header). */
export function newAccessToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * True when `given` is the token. Both sides are hashed first, so the comparison takes the same
 * time whatever the given string's length and however many leading characters are right.
 */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = createHash("sha256").update(given, "utf8").digest();
  const b = createHash("sha256").update(token, "utf8").digest();
  return timingSafeEqual(a, b);
}
