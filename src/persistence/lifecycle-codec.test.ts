import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { LEGACY_METADATA_KEYS, foldLegacy, lifecycleFromJson, lifecycleToJson, liftLegacy } from "./lifecycle-codec.ts";
import { ENTRY_STATUSES, type EntryLifecycle, type EntryStatus, type JsonValue, type Metadata } from "../types.ts";
import { lifecycleArbitrary } from "../../test/helpers/lifecycle-arbitrary.ts";

/** The caller's own metadata, with no key an older entry format used for the store's bookkeeping. */
const userMetadata: fc.Arbitrary<Metadata> = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue() as fc.Arbitrary<JsonValue>, { maxKeys: 4 })
  .map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !LEGACY_METADATA_KEYS.includes(k))));

/** The lifecycle fields an entry in this state can hold, as the store writes them (a purge leaves only purgedAt). */
function consistent(lifecycle: EntryLifecycle, status: EntryStatus, content: string): EntryLifecycle {
  const out = { ...lifecycle };
  if (status !== "deleted") {
    delete out.deletedFrom;
    delete out.deletedAt;
  }
  if (status !== "deleted" || content !== "") delete out.purgedAt;
  return out;
}

describe("lifecycle codec", () => {
  it("reads back what it writes (format 4)", () => {
    fc.assert(
      fc.property(lifecycleArbitrary, (lifecycle) => {
        expect(lifecycleFromJson(JSON.parse(JSON.stringify(lifecycleToJson(lifecycle))))).toEqual(lifecycle);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses an unknown field or a value of the wrong type", () => {
    expect(() => lifecycleFromJson({ nope: 1 })).toThrow(/lifecycle\.nope/);
    expect(() => lifecycleFromJson({ purged_at: "yesterday" })).toThrow(/lifecycle\.purged_at/);
    expect(() => lifecycleFromJson({ conflict: ["a", 2] })).toThrow(/lifecycle\.conflict/);
    expect(() => lifecycleFromJson({ deleted_from: "gone" })).toThrow(/lifecycle\.deleted_from/);
    expect(() => lifecycleFromJson({ truncated: { originalChars: 3, more: 1 } })).toThrow(/lifecycle\.truncated/);
    expect(() => lifecycleFromJson([])).toThrow(/lifecycle/);
  });

  it("folded into metadata the old way (formats before 4) and lifted back, gives the same lifecycle and metadata", () => {
    fc.assert(
      fc.property(
        lifecycleArbitrary,
        userMetadata,
        fc.constantFrom(...ENTRY_STATUSES),
        fc.constantFrom("", "some content"),
        (raw, metadata, status, content) => {
          const lifecycle = consistent(raw, status, content);
          const folded = JSON.parse(JSON.stringify(foldLegacy(metadata, lifecycle, "e1"))) as Metadata;
          const back = liftLegacy(folded, { status, content, updatedAt: 99 });
          expect(back.lifecycle).toEqual(lifecycle);
          expect(back.metadata).toEqual(JSON.parse(JSON.stringify(metadata)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("folds a purge as 0.1 wrote it: purged true and purged_at", () => {
    expect(foldLegacy({}, { purgedAt: 5 }, "e1")).toEqual({ purged: true, purged_at: 5 });
    expect(liftLegacy({ purged: true }, { status: "deleted", content: "", updatedAt: 7 })).toEqual({ lifecycle: { purgedAt: 7 }, metadata: {} });
  });

  it("leaves in the metadata what cannot have been the store's: a wrong type, or a state the entry is not in", () => {
    const active = { status: "active" as const, content: "I have a dog", updatedAt: 1 };
    expect(liftLegacy({ purged: true, purged_at: 3, deleted_from: "active", deleted_at: 4 }, active)).toEqual({
      lifecycle: {},
      metadata: { purged: true, purged_at: 3, deleted_from: "active", deleted_at: 4 },
    });
    expect(liftLegacy({ judge: 3, conflict: "x", extractor: "raw" }, active)).toEqual({
      lifecycle: { extractor: "raw" },
      metadata: { judge: 3, conflict: "x" },
    });
    // A deleted entry that still has content was not purged, whatever its metadata says.
    expect(liftLegacy({ purged: true }, { ...active, status: "deleted" }).metadata).toEqual({ purged: true });
  });

  it("refuses to fold metadata that uses an old bookkeeping name (an older moomem would take it for the store's)", () => {
    for (const key of LEGACY_METADATA_KEYS) {
      expect(() => foldLegacy({ [key]: "mine" }, {}, "e1")).toThrow(new RegExp(`entry e1 .*"${key}"`));
    }
    expect(foldLegacy({ channel: "chat" }, {}, "e1")).toEqual({ channel: "chat" });
  });
});
