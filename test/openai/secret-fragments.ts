// Finds what part of a secret a text still shows: any run of 8 characters (or the whole of a shorter secret), in the
// encodings a server or runtime may quote it in. Used by the secret-leak tests of every runtime.

const FRAGMENT = 8;

/** Standard base64 of the UTF-8 bytes of `text`. */
export function base64Of(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The forms a secret can be quoted in: as is, URL-encoded, JSON-escaped, base64 and base64url. */
export function encodingsOf(secret: string): string[] {
  const base64 = base64Of(secret);
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
      base64,
      base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
    ]),
  ];
}

/** Every fragment of `secret` (in any of its encodings) that occurs in `text`; empty when nothing leaked. */
export function leakedFragments(text: string, secret: string, length = FRAGMENT): string[] {
  const found = new Set<string>();
  for (const form of encodingsOf(secret)) {
    const k = Math.min(length, form.length);
    for (let i = 0; i + k <= form.length; i++) {
      const fragment = form.slice(i, i + k);
      if (text.includes(fragment)) found.add(fragment);
    }
  }
  return [...found];
}
