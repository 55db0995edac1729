// Two-bit term frequencies by document slot for one common term: "does this document hold the term?" in one read.

/**
 * A term's frequency in every document slot, saturating at 3: 0 means the slot does not hold the
 * term, 3 means 3 or more (the exact count is in the term's postings list). Sixteen slots per 32-bit
 * word, so n / 4 bytes cover n slots; slots past the end read as 0.
 *
 * A search that has narrowed the candidates down to a few hundred documents asks this once per
 * candidate instead of walking a postings list of tens of thousands.
 */
export class TfCodes {
  #words: Int32Array;

  private constructor(words: Int32Array) {
    this.#words = words;
  }

  /** Codes for the postings `slots`/`tfs`, with room for `slotCount` slots. */
  static fromPostings(slots: readonly number[], tfs: readonly number[], slotCount: number): TfCodes {
    const codes = new TfCodes(new Int32Array((slotCount + 15) >> 4));
    for (let i = 0; i < slots.length; i++) codes.set(slots[i] as number, tfs[i] as number);
    return codes;
  }

  /** Codes for the `count` postings stored as (slot, tf) pairs in `pairs` from pair `from`, with room for `slotCount` slots (indexes/bm25-layout.ts). */
  static fromPairs(pairs: Int32Array, from: number, count: number, slotCount: number): TfCodes {
    const codes = new TfCodes(new Int32Array((slotCount + 15) >> 4));
    for (let p = 2 * from, end = 2 * (from + count); p < end; p += 2) codes.set(pairs[p] as number, pairs[p + 1] as number);
    return codes;
  }

  /** Bytes held. */
  get byteLength(): number {
    return this.#words.byteLength;
  }

  /** The slot's code: its tf if below 3, else 3. */
  get(slot: number): number {
    const at = slot >> 4;
    const words = this.#words;
    if (at >= words.length) return 0;
    return ((words[at] as number) >>> ((slot & 15) << 1)) & 3;
  }

  /** Records the slot's tf (0 when it no longer holds the term), growing to cover the slot. */
  set(slot: number, tf: number): void {
    const at = slot >> 4;
    if (at >= this.#words.length) {
      if (tf === 0) return;
      // Slots are added one at a time at the end, so grow by half to keep the copies rare.
      const words = new Int32Array(Math.max(at + 1, this.#words.length + (this.#words.length >> 1)));
      words.set(this.#words);
      this.#words = words;
    }
    const shift = (slot & 15) << 1;
    const code = tf < 3 ? tf : 3;
    this.#words[at] = ((this.#words[at] as number) & ~(3 << shift)) | (code << shift);
  }

  /** Gives slot `to` the code of slot `from` and clears `from`: a document moved to another slot. */
  move(from: number, to: number): void {
    const code = this.get(from);
    this.set(from, 0);
    this.set(to, code);
  }
}
