// Entry ids: "<seq as 12 hex digits>-<4 random hex digits>", unique in a store, free of user information.

/** Makes the id of the entry with this seq. */
export function makeEntryId(seq: number): string {
  const random = new Uint16Array(1);
  globalThis.crypto.getRandomValues(random);
  return `${seq.toString(16).padStart(12, "0")}-${random[0]!.toString(16).padStart(4, "0")}`;
}
