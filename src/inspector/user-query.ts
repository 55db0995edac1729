// One page of the users table: filter by id, sort and cut on the server (a store may hold many thousands of users).

import type { UserSummary } from "../index.ts";
import type { Page } from "./api-types.ts";
import { QueryParams } from "./query-params.ts";

export const USER_SORTS = ["userId", "lastWriteAt", "total", "active", "superseded", "deleted", "unstructured"] as const;
export type UserSort = (typeof USER_SORTS)[number];

export interface UserQuery {
  /** Case-insensitive substring of the user id. */
  text?: string;
  sort: UserSort;
  order: "asc" | "desc";
  offset: number;
  limit: number;
}

const PARAMS = ["text", "sort", "order", "offset", "limit"] as const;

/** Reads `GET api/users?…`; throws `INVALID_ARGUMENT` naming the bad parameter. */
export function parseUserQuery(search: URLSearchParams): UserQuery {
  const p = new QueryParams(search, PARAMS, "users");
  const query: UserQuery = {
    sort: p.choice("sort", USER_SORTS, "lastWriteAt"),
    order: p.choice("order", ["asc", "desc"], "desc"),
    offset: p.integer("offset", 0, 1_000_000_000, 0),
    limit: p.integer("limit", 1, 500, 100),
  };
  const text = p.text("text", 64);
  if (text !== undefined) query.text = text;
  return query;
}

/** The users of one page and how many matched. */
export function selectUsers(users: readonly UserSummary[], query: UserQuery): Page & { users: UserSummary[] } {
  const needle = query.text?.toLowerCase();
  const matched = needle === undefined ? [...users] : users.filter((u) => u.userId.toLowerCase().includes(needle));
  const sign = query.order === "asc" ? 1 : -1;
  const field = query.sort;
  matched.sort((a, b) => {
    const byField = field === "userId" ? compareText(a.userId, b.userId) : a[field] - b[field];
    return sign * byField || compareText(a.userId, b.userId);
  });
  return { total: matched.length, offset: query.offset, limit: query.limit, users: matched.slice(query.offset, query.offset + query.limit) };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
