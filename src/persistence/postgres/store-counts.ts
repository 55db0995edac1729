// users() and stats() of a store many processes write: counted in PostgreSQL at call time, not from this process's copy.

import type { StoreCounts } from "../backend.ts";
import type { UserSummary } from "../../types.ts";
import { ENTRY_STATUSES } from "../../types.ts";
import type { SqlQueryable, SqlRow } from "./sql-client.ts";
import { numeric } from "./row-codec.ts";

/** The select-list items counting a group's entries per status, one column named after each status. */
export const STATUS_COUNTS: string = ENTRY_STATUSES.map((s) => `count(*) FILTER (WHERE status = '${s}') AS "${s}"`).join(", ");

/** A user's summary from a row grouped by user with `total`, {@link STATUS_COUNTS} and `last_write_at`. */
export function userSummaryOfRow(row: SqlRow): UserSummary {
  const summary: UserSummary = {
    userId: String(row["user_id"]),
    total: Number(numeric(row["total"])),
    active: 0,
    superseded: 0,
    deleted: 0,
    unstructured: 0,
    lastWriteAt: Number(numeric(row["last_write_at"])),
  };
  for (const status of ENTRY_STATUSES) summary[status] = Number(numeric(row[status]));
  return summary;
}

/**
 * Every user with at least one entry, with counts per status and the largest `updated_at`, sorted by user id:
 * one grouped statement over `entries` (one snapshot; the count the catalog makes at open).
 * `s`: the quoted schema.
 */
export async function countUsers(db: SqlQueryable, s: string): Promise<UserSummary[]> {
  const rows = await db.query(
    `SELECT user_id, count(*) AS total, ${STATUS_COUNTS}, max(updated_at) AS last_write_at
     FROM ${s}.entries GROUP BY user_id`,
  );
  const users = rows.map(userSummaryOfRow);
  // Sorted as the store sorts (UTF-16 code units), which no SQL collation matches for every character.
  return users.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
}

/**
 * Entries per status, users with an entry, and the last write time the meta row records: one statement,
 * one snapshot. `s`: the quoted schema.
 */
export async function countEntries(db: SqlQueryable, s: string): Promise<StoreCounts> {
  const [row] = await db.query(
    `SELECT count(*) AS total, ${STATUS_COUNTS}, count(DISTINCT user_id) AS users,
       (SELECT last_write_at FROM ${s}.meta WHERE id = 1) AS last_write_at
     FROM ${s}.entries`,
  );
  const at = row?.["last_write_at"];
  const counts: StoreCounts = {
    total: Number(numeric(row?.["total"] ?? 0)),
    active: 0,
    superseded: 0,
    deleted: 0,
    unstructured: 0,
    users: Number(numeric(row?.["users"] ?? 0)),
    lastWriteAt: at === null || at === undefined ? null : Number(numeric(at)),
  };
  for (const status of ENTRY_STATUSES) counts[status] = Number(numeric(row?.[status] ?? 0));
  return counts;
}
