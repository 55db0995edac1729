// The page's routes live in the URL fragment (#/users/alice?status=active), so views are linkable and Back works, and the server never sees them.

export type Route =
  | { view: "users"; params: URLSearchParams }
  | { view: "entries"; userId: string; params: URLSearchParams }
  | { view: "entry"; userId: string; id: string }
  | { view: "recall"; params: URLSearchParams }
  | { view: "stats" }
  | { view: "not-found"; path: string };

/** The route a fragment names; anything not starting with `#/` is the users page. */
export function parseRoute(hash: string): Route {
  if (!hash.startsWith("#/")) return { view: "users", params: new URLSearchParams() };
  const body = hash.slice(2);
  const q = body.indexOf("?");
  const path = q === -1 ? body : body.slice(0, q);
  const params = new URLSearchParams(q === -1 ? "" : body.slice(q + 1));
  let parts: string[];
  try {
    parts = path === "" ? [] : path.split("/").map(decodeURIComponent);
  } catch (_error) {
    return { view: "not-found", path };
  }
  if (parts.length === 0) return { view: "users", params };
  if (parts[0] === "stats" && parts.length === 1) return { view: "stats" };
  if (parts[0] === "recall" && parts.length === 1) return { view: "recall", params };
  if (parts[0] === "users" && parts.length === 2) return { view: "entries", userId: parts[1]!, params };
  if (parts[0] === "users" && parts.length === 4 && parts[2] === "entries") return { view: "entry", userId: parts[1]!, id: parts[3]! };
  return { view: "not-found", path };
}

/** Link to a route: `href("users", "alice")` → `#/users/alice`, with optional query parameters. */
export function href(parts: readonly string[], params?: Record<string, string | number | undefined> | URLSearchParams): string {
  const path = `#/${parts.map(encodeURIComponent).join("/")}`;
  const query = new URLSearchParams();
  const pairs = params instanceof URLSearchParams ? [...params] : Object.entries(params ?? {});
  // Empty form fields stay out of the URL.
  for (const [name, value] of pairs) if (value !== undefined && value !== "") query.set(name, String(value));
  const text = query.toString();
  return text === "" ? path : `${path}?${text}`;
}

export function userHref(userId: string, params?: Record<string, string | number | undefined> | URLSearchParams): string {
  return href(["users", userId], params);
}

export function entryHref(userId: string, id: string): string {
  return href(["users", userId, "entries", id]);
}
