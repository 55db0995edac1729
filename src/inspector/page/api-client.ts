// Calls to the inspector's API from the page: relative URLs (so the token in the page's path goes along), the token header on writes.

import type { ApiError } from "../api-types.ts";

/** A request the server refused or could not answer; `message` is the server's explanation. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiFailure";
    this.status = status;
    this.code = code;
  }
}

export type Params = Record<string, string | number | undefined>;

/** `api/users/<user>/entries/<id>` with each part percent-encoded. */
export function apiPath(...parts: string[]): string {
  return ["api", ...parts.map(encodeURIComponent)].join("/");
}

export async function getJson<T>(path: string, params: Params = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== "") query.set(name, String(value));
  const text = query.toString();
  return answer<T>(await fetch(text === "" ? path : `${path}?${text}`, { headers: { Accept: "application/json" } }));
}

/** A write: POST with a JSON body and the access token in a header (the server refuses writes without it). */
export async function postJson<T>(path: string, body: object): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-Moomem-Token": accessToken() },
    body: JSON.stringify(body),
  });
  return answer<T>(response);
}

/** The token is the first segment of the page's own path (`/<token>/`). */
function accessToken(): string {
  return location.pathname.split("/")[1] ?? "";
}

async function answer<T>(response: Response): Promise<T> {
  let body: unknown;
  try {
    body = await response.json();
  } catch (_error) {
    throw new ApiFailure(response.status, "BAD_RESPONSE", `the server answered ${response.status} without JSON`);
  }
  if (!response.ok) {
    const error = (body as Partial<ApiError>).error;
    throw new ApiFailure(response.status, error?.code ?? "ERROR", error?.message ?? `request failed with status ${response.status}`);
  }
  return body as T;
}
