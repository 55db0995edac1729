// Where a BM25 index keeps its postings and documents: typed arrays and pools, with no object per document or posting.

import { TfCodes } from "./tf-codes.ts";

/** A term's codes are dropped when it falls below 1 / CODES_DROP of the documents, so they never cost more than 8 bytes per posting (+50 % while growing). */
export const CODES_DROP = 32;
/** A first flush of at least this many documents is a build (a user's first load), after which the arrays are trimmed. */
const BULK = 64;
/** Pools are compacted only once they hand out at least this many pairs. */
const COMPACT_FLOOR = 1024;

/**
 * The postings and documents of one BM25 index (indexes/bm25-index.ts does the scoring), laid out for
 * a heap with few objects (docs/decisions.md, "BM25 in typed arrays"):
 *
 * - a term is a number (`ids` maps its text to it; freed numbers are reused), and what the index knows
 *   of it sits in arrays by that number: where its postings list starts in `pool`, its length (df) and
 *   room, its largest tf, its smallest length / tf, and, during a search, its index in the query;
 * - `pool` holds every postings list as (slot, tf) pairs, each list in a run of its own with room to
 *   grow; a full list moves to the end of the pool with twice the room, and the pool is compacted when
 *   less than half of what it hands out holds postings (runs left behind, room freed by removes);
 * - a document is a slot `0..size-1`, with its doc number, length and search stamp in arrays by slot,
 *   and its terms in `docPool` as (term, position in that term's list) pairs, a run per document.
 *
 * A document is staged when added: its terms and counts go to `docPool` and its length is known, but
 * its postings are written by {@link flush}, in bulk, for every staged document at once (two passes:
 * the room each list needs, then the postings in slot order). The index flushes before reading
 * postings, so a store's whole user built from its snapshot becomes one pass per list.
 */
export class Bm25Layout {
  /** Term text → term number. */
  readonly ids: Map<string, number> = new Map();
  /** Term number → text, undefined for a free number. */
  names: (string | undefined)[] = [];
  /** Term numbers handed out so far (free ones included). */
  termCount: number = 0;
  readonly #freeTerms: number[] = [];
  /** By term: start of its list in `pool` (in pairs), its length (df), and its room. */
  start: Int32Array = new Int32Array(0);
  df: Int32Array = new Int32Array(0);
  room: Int32Array = new Int32Array(0);
  /**
   * By term: the largest tf ever added to its list. Removes leave it as it is, so it may overstate the
   * current maximum, which keeps it a valid upper bound for the search's pruning.
   */
  maxTf: Int32Array = new Int32Array(0);
  /** By term: the smallest document length / tf ever added to its list (kept through removes like maxTf). */
  minRatio: Float64Array = new Float64Array(0);
  /** By term: during a search, its index among the query's distinct terms; −1 otherwise. */
  queryIndex: Int32Array = new Int32Array(0);
  /** By term: postings staged for it, not yet in its list. */
  #staged = new Int32Array(0);
  /** By term: where in `docPool` the document being added holds it (checked before use: see #count). */
  #mark = new Int32Array(0);
  /** Terms with staged postings. */
  #stagedTerms: number[] = [];
  /** By term: its {@link TfCodes} when a search made them, else null (see bm25-index.ts). */
  codes: (TfCodes | null)[] = [];

  /** Every postings list, as (slot, tf) pairs. */
  pool: Int32Array = new Int32Array(0);
  /** Pairs of `pool` handed out (to lists' runs, dead or alive). */
  #poolUsed = 0;
  /** Postings in the lists (the pairs of `pool` in use). */
  #poolLive = 0;

  /** Documents held. */
  size: number = 0;
  /** By slot: the document's number. */
  docOf: Float64Array = new Float64Array(0);
  /**
   * Two numbers per slot: the search stamp, then the document length, side by side so that scoring a
   * posting reads one cache line (see bm25-index.ts for the stamps).
   */
  info: Int32Array = new Int32Array(0);
  /** By slot: the start (in pairs) and count of the document's run in `docPool`. */
  docStart: Int32Array = new Int32Array(0);
  docTerms: Int32Array = new Int32Array(0);
  /** Every document's terms, as (term, position in its list) pairs; (term, tf) while staged. */
  docPool: Int32Array = new Int32Array(0);
  #docUsed = 0;
  #docDead = 0;
  /** The first staged slot (`size` when none is). */
  #firstStaged = 0;
  /**
   * Document number → slot, for the slots below #mapped. The others (a build's 100,000 documents, and the
   * adds since the last look-up) are entered when a look-up needs them: a search does not, so a user
   * built to answer recalls and take new memories never makes the map's ~10-25 ms of entries, nor holds
   * them, until a remove or a check of a doc that may be held.
   */
  readonly #slotOf = new Map<number, number>();
  #mapped = 0;
  totalLength: number = 0;

  /** The slot of document `doc`, or undefined when it is not held. */
  slotOf(doc: number): number | undefined {
    if (this.#mapped < this.size) this.#mapAll();
    return this.#slotOf.get(doc);
  }

  #mapAll(): void {
    const slotOf = this.#slotOf;
    const docOf = this.docOf;
    for (let slot = this.#mapped; slot < this.size; slot++) slotOf.set(docOf[slot] as number, slot);
    this.#mapped = this.size;
  }

  /** The number of term `name`, made (with an empty list) if new. */
  term(name: string): number {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    let t = this.#freeTerms.pop();
    if (t === undefined) {
      t = this.termCount++;
      if (t >= this.start.length) this.#growTerms(t + 1);
    }
    this.ids.set(name, t);
    this.names[t] = name;
    this.codes[t] = null;
    return t;
  }

  #growTerms(least: number): void {
    const size = Math.max(least, 64, this.start.length + (this.start.length >> 1));
    this.start = grownInt32(this.start, size);
    this.df = grownInt32(this.df, size);
    this.room = grownInt32(this.room, size);
    this.maxTf = grownInt32(this.maxTf, size);
    this.#staged = grownInt32(this.#staged, size);
    this.#mark = grownInt32(this.#mark, size);
    const queryIndex = new Int32Array(size).fill(-1);
    queryIndex.set(this.queryIndex);
    this.queryIndex = queryIndex;
    const minRatio = new Float64Array(size).fill(Infinity);
    minRatio.set(this.minRatio);
    this.minRatio = minRatio;
  }

  /**
   * Makes room for `terms` more terms and `pairs` more (term, document) pairs at once, rather than
   * growing by half again and again: a build from a snapshot section knows both from its block.
   */
  reserve(terms: number, pairs: number): void {
    if (this.termCount + terms > this.start.length) this.#growTerms(this.termCount + terms);
    if (2 * (this.#docUsed + pairs) > this.docPool.length) this.docPool = grownInt32(this.docPool, 2 * (this.#docUsed + pairs));
  }

  /** Starts staging document `doc` (new to the index) in the next slot; returns the slot. */
  open(doc: number): number {
    const slot = this.size;
    if (2 * (slot + 1) > this.info.length) {
      // Grow by half: adds come one at a time.
      const slots = Math.max(64, slot + 1, this.docOf.length + (this.docOf.length >> 1));
      const docOf = new Float64Array(slots);
      docOf.set(this.docOf);
      this.docOf = docOf;
      this.info = grownInt32(this.info, 2 * slots);
      this.docStart = grownInt32(this.docStart, slots);
      this.docTerms = grownInt32(this.docTerms, slots);
    }
    this.docOf[slot] = doc;
    this.docStart[slot] = this.#docUsed;
    this.docTerms[slot] = 0;
    return slot;
  }

  /**
   * Adds `tf` occurrences of term `t` to the document being staged in `slot`: a term already counted
   * there gets its tf raised (one posting per term and document), a new one a pair at the run's end.
   */
  count(slot: number, t: number, tf: number): void {
    const at = this.#mark[t] as number;
    // The mark may be stale (another document's, or another term's before the number was reused): it
    // is this document's entry for t only if it falls in its run and names t, as each term is there once.
    if (at >= (this.docStart[slot] as number) && at < this.#docUsed && this.docPool[2 * at] === t) {
      this.docPool[2 * at + 1] = (this.docPool[2 * at + 1] as number) + tf;
      return;
    }
    if (2 * (this.#docUsed + 1) > this.docPool.length) this.docPool = grownInt32(this.docPool, Math.max(256, 2 * (this.#docUsed + 1) + this.docPool.length));
    const e = this.#docUsed++;
    this.docPool[2 * e] = t;
    this.docPool[2 * e + 1] = tf;
    this.#mark[t] = e;
    this.docTerms[slot] = (this.docTerms[slot] as number) + 1;
    const staged = this.#staged[t] as number;
    if (staged === 0) this.#stagedTerms.push(t);
    this.#staged[t] = staged + 1;
  }

  /**
   * Stages document `doc` (new to the index) in the next slot at once, as {@link open}, a {@link count}
   * of each (term `ts[i]`, `tfs[i]`) for `i < pairs`, then {@link close} with `length` would; returns
   * the slot. The bulk load's way (Bm25Index.addCounted): one call per document rather than per term.
   */
  stage(doc: number, ts: Int32Array, tfs: Int32Array, pairs: number, length: number): number {
    const slot = this.open(doc);
    let used = this.#docUsed;
    if (2 * (used + pairs) > this.docPool.length) this.docPool = grownInt32(this.docPool, Math.max(256, 2 * (used + pairs) + this.docPool.length));
    const docPool = this.docPool;
    const mark = this.#mark;
    const staged = this.#staged;
    const first = used;
    for (let i = 0; i < pairs; i++) {
      const t = ts[i] as number;
      const tf = tfs[i] as number;
      const at = mark[t] as number;
      // As in count: the mark names this document's entry for t only if it falls in its run and holds t.
      if (at >= first && at < used && docPool[2 * at] === t) {
        docPool[2 * at + 1] = (docPool[2 * at + 1] as number) + tf;
        continue;
      }
      docPool[2 * used] = t;
      docPool[2 * used + 1] = tf;
      mark[t] = used++;
      const before = staged[t] as number;
      if (before === 0) this.#stagedTerms.push(t);
      staged[t] = before + 1;
    }
    this.#docUsed = used;
    this.docTerms[slot] = used - first;
    this.close(slot, length);
    return slot;
  }

  /** Ends staging the document in `slot`, of `length` tokens (stop words left out). */
  close(slot: number, length: number): void {
    this.info[2 * slot] = 0;
    this.info[2 * slot + 1] = length;
    this.totalLength += length;
    this.size = slot + 1;
  }

  /**
   * Writes the staged documents' postings: first room for each list touched (a list moves at most
   * once), then the postings in slot order, as adding the documents one at a time would leave them.
   */
  flush(): void {
    const from = this.#firstStaged;
    const n = this.size;
    if (from === n) return;
    const terms = this.#stagedTerms;
    const staged = this.#staged;
    const start = this.start;
    const df = this.df;
    const room = this.room;
    // Pass 1: room. A list that must move gets twice its room or what it needs: exact for a list made
    // by the flush, doubling for one growing a posting at a time.
    let extra = 0;
    let added = 0;
    // Whether a list touched has codes to keep current (a build's have none: they are made by searches).
    let coded = false;
    const codes = this.codes;
    for (const t of terms) {
      const need = (df[t] as number) + (staged[t] as number);
      added += staged[t] as number;
      if (need > (room[t] as number)) extra += Math.max(need, 2 * (room[t] as number));
      if (codes[t] !== null) coded = true;
    }
    this.#poolLive += added;
    if (extra > 0) {
      if (this.#poolUsed + extra > 2 * this.#poolLive && this.#poolUsed >= COMPACT_FLOOR) {
        this.#compactPool();
      } else {
        if (this.#poolUsed + extra > this.pool.length / 2) {
          this.pool = grownInt32(this.pool, 2 * Math.max(this.#poolUsed + extra, Math.floor(this.pool.length * 0.75)));
        }
        const pool = this.pool;
        for (const t of terms) {
          const have = room[t] as number;
          const need = (df[t] as number) + (staged[t] as number);
          if (need <= have) continue;
          const grown = Math.max(need, 2 * have);
          const at = start[t] as number;
          if (have > 0 && at + have === this.#poolUsed) {
            // The list's run ends the pool: it grows where it is.
            this.#poolUsed += grown - have;
          } else {
            if ((df[t] as number) > 0) pool.copyWithin(2 * this.#poolUsed, 2 * at, 2 * (at + (df[t] as number)));
            start[t] = this.#poolUsed;
            this.#poolUsed += grown;
          }
          room[t] = grown;
        }
      }
    }
    // Pass 2: the postings, in slot order.
    const pool = this.pool;
    const docPool = this.docPool;
    const info = this.info;
    const maxTf = this.maxTf;
    const minRatio = this.minRatio;
    for (let slot = from; slot < n; slot++) {
      const length = info[2 * slot + 1] as number;
      const first = this.docStart[slot] as number;
      const end = first + (this.docTerms[slot] as number);
      for (let e = first; e < end; e++) {
        const t = docPool[2 * e] as number;
        const tf = docPool[2 * e + 1] as number;
        const position = df[t] as number;
        df[t] = position + 1;
        const p = 2 * ((start[t] as number) + position);
        pool[p] = slot;
        pool[p + 1] = tf;
        docPool[2 * e + 1] = position;
        if (tf > (maxTf[t] as number)) maxTf[t] = tf;
        const ratio = length / tf;
        if (ratio < (minRatio[t] as number)) minRatio[t] = ratio;
        if (coded) codes[t]?.set(slot, tf);
      }
    }
    for (const t of terms) {
      staged[t] = 0;
      // Dropped rather than kept: the term has become too rare for the codes to pay.
      if (coded && codes[t] !== null && (df[t] as number) * CODES_DROP < n) codes[t] = null;
    }
    terms.length = 0;
    this.#firstStaged = n;
    // Only a first flush: trimming after later ones would copy a large index again and again, each later add growing it back.
    if (from === 0 && n >= BULK) this.#trim();
  }

  /**
   * After a build (the index's first flush): gives back the room the build reserved or grew into and did not use (the
   * section's stop-word pairs, the last growth of the slot arrays). Later adds grow them again by half.
   */
  #trim(): void {
    const n = this.size;
    if (this.docOf.length > n + (n >> 3) + 64) {
      const docOf = new Float64Array(n);
      docOf.set(this.docOf.subarray(0, n));
      this.docOf = docOf;
      this.info = grownInt32(this.info, 2 * n);
      this.docStart = grownInt32(this.docStart, n);
      this.docTerms = grownInt32(this.docTerms, n);
    }
    const used = this.#docUsed;
    if (this.docPool.length > 2 * (used + (used >> 3) + 64)) this.docPool = grownInt32(this.docPool, 2 * used);
    if (this.pool.length > 2 * (this.#poolUsed + (this.#poolUsed >> 3) + 64)) this.pool = grownInt32(this.pool, 2 * this.#poolUsed);
  }

  /**
   * Moves every live list to the start of a new pool, each with room for its postings and the staged
   * ones, plus an eighth for the next adds.
   */
  #compactPool(): void {
    const staged = this.#staged;
    let used = 0;
    for (let t = 0; t < this.termCount; t++) {
      if (this.names[t] !== undefined) used += roomFor((this.df[t] as number) + (staged[t] as number));
    }
    const pool = new Int32Array(2 * (used + (used >> 4) + 16));
    let at = 0;
    for (let t = 0; t < this.termCount; t++) {
      if (this.names[t] === undefined) continue;
      const from = this.start[t] as number;
      const count = this.df[t] as number;
      pool.set(this.pool.subarray(2 * from, 2 * (from + count)), 2 * at);
      this.start[t] = at;
      this.room[t] = roomFor(count + (staged[t] as number));
      at += this.room[t] as number;
    }
    this.pool = pool;
    this.#poolUsed = at;
  }

  /**
   * Removes the document in `slot` (nothing staged), and its number: each of its postings is replaced by its list's
   * last one, and the index's last document moves into the slot. Cost grows with the document's
   * distinct terms and the moved one's, not the index.
   */
  remove(slot: number): void {
    if (this.#mapped < this.size) this.#mapAll();
    this.#slotOf.delete(this.docOf[slot] as number);
    const pool = this.pool;
    const docPool = this.docPool;
    const start = this.start;
    const df = this.df;
    const n = this.size;
    const first = this.docStart[slot] as number;
    const end = first + (this.docTerms[slot] as number);
    for (let e = first; e < end; e++) {
      const t = docPool[2 * e] as number;
      const at = docPool[2 * e + 1] as number;
      const base = start[t] as number;
      const lastAt = (df[t] as number) - 1;
      if (at !== lastAt) {
        // Fill the hole with the list's last posting and tell its document where it went.
        const movedSlot = pool[2 * (base + lastAt)] as number;
        pool[2 * (base + at)] = movedSlot;
        pool[2 * (base + at) + 1] = pool[2 * (base + lastAt) + 1] as number;
        const movedFirst = this.docStart[movedSlot] as number;
        const movedEnd = movedFirst + (this.docTerms[movedSlot] as number);
        for (let m = movedFirst; m < movedEnd; m++) {
          if (docPool[2 * m] === t) {
            docPool[2 * m + 1] = at;
            break;
          }
        }
      }
      df[t] = lastAt;
      const codes = this.codes[t];
      if (codes !== null && codes !== undefined) {
        if (lastAt * CODES_DROP < n - 1) this.codes[t] = null;
        else codes.set(slot, 0);
      }
      if (lastAt === 0) this.#freeTerm(t);
    }
    this.#docDead += end - first;
    this.#poolLive -= end - first;
    const lastSlot = n - 1;
    const info = this.info;
    if (slot !== lastSlot) {
      // Move the last document into the freed slot: rewrite its slot number in each of its postings.
      const movedFirst = this.docStart[lastSlot] as number;
      const movedEnd = movedFirst + (this.docTerms[lastSlot] as number);
      for (let m = movedFirst; m < movedEnd; m++) {
        const t = docPool[2 * m] as number;
        pool[2 * ((start[t] as number) + (docPool[2 * m + 1] as number))] = slot;
        this.codes[t]?.move(lastSlot, slot);
      }
      const movedDoc = this.docOf[lastSlot] as number;
      this.docOf[slot] = movedDoc;
      this.docStart[slot] = movedFirst;
      this.docTerms[slot] = movedEnd - movedFirst;
      info[2 * slot + 1] = info[2 * lastSlot + 1] as number;
      this.#slotOf.set(movedDoc, slot);
    }
    info[2 * slot] = 0;
    info[2 * lastSlot] = 0;
    info[2 * lastSlot + 1] = 0;
    this.size = lastSlot;
    this.#mapped = lastSlot;
    this.#firstStaged = lastSlot;
    if (2 * this.#docDead > this.#docUsed && this.#docUsed >= COMPACT_FLOOR) this.#compactDocs();
    // Runs given up by lists that moved or died, and room left by removes: compact once they pass the postings.
    if (this.#poolUsed > 2 * this.#poolLive && this.#poolUsed >= COMPACT_FLOOR) this.#compactPool();
  }

  #freeTerm(t: number): void {
    this.ids.delete(this.names[t] as string);
    this.names[t] = undefined;
    // A run that ends the pool is given back at once; any other waits for a compaction.
    if ((this.start[t] as number) + (this.room[t] as number) === this.#poolUsed) this.#poolUsed -= this.room[t] as number;
    this.start[t] = 0;
    this.room[t] = 0;
    this.maxTf[t] = 0;
    this.minRatio[t] = Infinity;
    this.codes[t] = null;
    this.#freeTerms.push(t);
  }

  /** Moves every document's run to the start of a new docPool, in slot order. */
  #compactDocs(): void {
    const used = this.#docUsed - this.#docDead;
    const docPool = new Int32Array(2 * (used + (used >> 2) + 16));
    let at = 0;
    for (let slot = 0; slot < this.size; slot++) {
      const from = this.docStart[slot] as number;
      const count = this.docTerms[slot] as number;
      docPool.set(this.docPool.subarray(2 * from, 2 * (from + count)), 2 * at);
      this.docStart[slot] = at;
      at += count;
    }
    this.docPool = docPool;
    this.#docUsed = at;
    this.#docDead = 0;
  }

  /** The tf of the document in `slot` for term `t`, which it holds. */
  tfOf(slot: number, t: number): number {
    const docPool = this.docPool;
    const first = this.docStart[slot] as number;
    const end = first + (this.docTerms[slot] as number);
    for (let e = first; e < end; e++) {
      if (docPool[2 * e] === t) return this.pool[2 * ((this.start[t] as number) + (docPool[2 * e + 1] as number)) + 1] as number;
    }
    return 0;
  }

  /** Bytes of the typed arrays (what the heap holds beyond the maps and the term texts). */
  get byteLength(): number {
    let codes = 0;
    for (const c of this.codes) if (c !== null && c !== undefined) codes += c.byteLength;
    return (
      this.pool.byteLength +
      this.docPool.byteLength +
      this.docOf.byteLength +
      this.info.byteLength +
      this.docStart.byteLength +
      this.docTerms.byteLength +
      7 * this.start.byteLength +
      this.minRatio.byteLength +
      codes
    );
  }
}

/** The room a compaction gives a list of `count` postings. */
function roomFor(count: number): number {
  return count + (count >> 3);
}

function grownInt32(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array.subarray(0, Math.min(array.length, size)));
  return next;
}
