// The warning a CLI run prints when opening the store found a torn tail: which write was lost, and where.

import type { TornTail } from "../node.ts";

/** One line naming the cut (or, read-only, ignored) write: file, line, time, bytes and the entries it seems to hold. */
export function tornTailNotice(tail: TornTail, readOnly: boolean): string {
  const when = tail.writtenAt === null ? "" : ` written at ${new Date(tail.writtenAt).toISOString()}`;
  const held =
    tail.entries.length === 0
      ? "its entries could not be read"
      : `it held ${tail.entries
          .slice(0, 5)
          .map((e) => `${e.id}${e.userId === null ? "" : ` of user ${e.userId}`}`)
          .join(", ")}${tail.entries.length > 5 ? ` and ${tail.entries.length - 5} more` : ""}`;
  const fate = readOnly ? "it is ignored (the next writable open cuts it off)" : `${tail.bytes} bytes were cut off`;
  return (
    `warning: ${tail.file} line ${tail.line}: the last write${when} was incomplete or damaged (${tail.reason}); ${fate}, ` +
    `so that write is lost (${held}). See README "Guarantees" and \`moomem stats\`.`
  );
}
