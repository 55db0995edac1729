// Random lifecycles (the store's bookkeeping on an entry) for property tests of the codecs.

import fc from "fast-check";
import { ENTRY_STATUSES, type EntryLifecycle } from "../../src/types.ts";

const id = fc.string({ minLength: 1, maxLength: 16 });
const time = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 45 }),
  fc.double({ min: -1e13, max: 1e13, noNaN: true, noDefaultInfinity: true }).filter((t) => !Object.is(t, -0)),
);

/** Any lifecycle: each field present or not, with any value of its type. */
export const lifecycleArbitrary: fc.Arbitrary<EntryLifecycle> = fc.record(
  {
    extractor: fc.string({ maxLength: 12 }),
    sourceSpan: fc.string({ unit: "grapheme", maxLength: 30 }),
    truncated: fc.record({ originalChars: fc.nat() }),
    extractionDegraded: fc.string({ maxLength: 30 }),
    embeddingDegraded: fc.string({ maxLength: 30 }),
    judge: fc.string({ maxLength: 12 }),
    judgeFallback: fc.string({ maxLength: 30 }),
    conflictReason: fc.string({ maxLength: 30 }),
    conflict: fc.array(id, { maxLength: 4 }),
    deletedFrom: fc.constantFrom(...ENTRY_STATUSES),
    deletedAt: time,
    purgedAt: time,
    restoredAt: time,
    reextractedFrom: id,
    reextractedInto: fc.array(id, { maxLength: 4 }),
    reextractedAt: time,
  },
  { requiredKeys: [] },
);
