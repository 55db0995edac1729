// Okapi BM25 over one user's entries: an inverted index updated in place on add and remove.

import { invalidArgument } from "../errors.ts";
import { checkDoc, checkK, TopK, type ScoredDoc } from "./top-k.ts";
import { STOP_WORDS } from "../text/stop-words.ts";
import { TfCodes } from "./tf-codes.ts";
import { Bm25Layout, CODES_DROP } from "./bm25-layout.ts";

export type { ScoredDoc } from "./top-k.ts";

/**
 * BM25 tuning.
 *
 * @example
 * ```ts
 * new Bm25Index({ k1: 1.5, b: 0.75 });
 * ```
 */
export interface Bm25Params {
  /**
   * Term-frequency saturation: how much the 2nd, 3rd… occurrence of a term still adds. Default 0.9; ≥ 0.
   * 0.9 and b 0.4 are Anserini's defaults for short passages, taken from the literature rather than
   * tuned here; on LoCoMo dev they beat the textbook 1.2 / 0.75 by 1.8 AnyHit@5 points (docs/eval/tuning.md):
   * memories are short, so a long one is seldom long because it rambles.
   */
  k1?: number;
  /** Length normalisation: 0 ignores document length, 1 divides fully by it relative to the average. Default 0.4; 0..1. */
  b?: number;
  /**
   * Tokens left out of documents and queries (they neither match nor count towards a document's length).
   * Default: English and Chinese function words ({@link STOP_WORDS}); pass an empty set to index every token.
   * On LoCoMo dev, leaving them out lifted keyword-only AnyHit@5 from 53.4 to 59.2 % (docs/eval/tuning.md):
   * idf alone does not silence words like "did" or "her", which are rare enough in chat to score.
   */
  stopWords?: ReadonlySet<string>;
}

/**
 * BM25 keyword index for one user shard.
 *
 * Scoring is Okapi BM25 with Lucene's non-negative idf, `ln(1 + (N − df + 0.5) / (df + 0.5))`.
 * A query term counts once however often the query repeats it (a chatty query such as
 * "peanut? peanut!" should not outweigh its other words). Stop words (see {@link Bm25Params.stopWords})
 * are left out of documents and queries alike.
 *
 * Documents sit in dense slots; removing a document moves the last one into its slot and patches only
 * the postings involved. A search numbers the documents it touches in the order it meets them and
 * keeps their scores in small arrays by that number, found through a stamp per slot, so it neither
 * clears anything afterwards nor reads a score array as large as the index.
 * A search with several terms and a k small next to the index walks the rarest terms first and skips
 * documents that provably cannot make the top k, with the same results, scores included, as scoring
 * every document that holds a query term.
 *
 * @example
 * ```ts
 * const index = new Bm25Index();
 * index.add(1, tokenize("I'm allergic to peanuts"));
 * index.search(tokenize("peanuts"), 10); // [{ doc: 1, score: 0.29 }]
 * ```
 */
export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  readonly #stopWords: ReadonlySet<string>;
  /** Terms, postings and documents (see Bm25Layout); its postings are current only after a flush. */
  readonly #layout = new Bm25Layout();
  /**
   * A search stamp at or above #base is `#base + i` for the i-th document the current search touched;
   * every other stamp is below #base (each search moves #base past its own).
   */
  #base = 1;
  /**
   * addCounted's memo of the term list it was last given: by term id there, the layout's term + 1, −1
   * for a stop word, or 0 when not looked up yet; it saves the map look-up of a text per token. It holds
   * while no term number is freed and reused (a remove drops it, as does a search, which ends a build),
   * and while the list keeps the texts it had (addCounted asks that of its caller).
   */
  #memoTerms: readonly string[] | null = null;
  #memo = new Int32Array(0);
  /** At least every doc ever added (removes leave it): a larger doc cannot be indexed already. */
  #maxDoc = -1;
  /** addCounted's scratch: the document's (term, tf) pairs for the layout. */
  #pairTerms = new Int32Array(0);
  #pairTfs = new Int32Array(0);
  /** The current search's touched documents, by the order it met them */
  #touched = new TouchedDocs();
  /** #scorePruned's k best partial scores, kept to reuse its arrays (as are the ones below) */
  #heap = new PartialHeap();
  /** touched documents still in the running in #scorePruned's second phase, also as a bit set of their slots while it walks a list (all 0 otherwise) */
  #alive = new IdList();
  #aliveBits = new Int32Array(0);
  /** #scorePruned's per-term weights, walking order and remaining bounds, and #rescore's query-ordered (term, tf) pairs */
  #weights = new Float64Array(0);
  #order = new Float64Array(0);
  #remaining = new Float64Array(0);
  #rescoreTerms = new Int32Array(0);
  #rescoreTfs = new Float64Array(0);
  /** #normTables' tables and the average length they are for; made on the first search (an index per user) */
  #tables: { avgLength: number; norms: Float64Array; ones: Float64Array } | null = null;

  constructor(params?: Bm25Params) {
    const k1 = params?.k1 ?? 0.9;
    const b = params?.b ?? 0.4;
    if (typeof k1 !== "number" || !Number.isFinite(k1) || k1 < 0) {
      throw invalidArgument(`Bm25Index: k1 must be a finite number ≥ 0 (typically 0.9–2), got ${String(k1)}.`);
    }
    if (typeof b !== "number" || !(b >= 0 && b <= 1)) {
      throw invalidArgument(`Bm25Index: b must be a number in 0..1 (typically 0.3–0.75), got ${String(b)}.`);
    }
    const stopWords = params?.stopWords ?? STOP_WORDS;
    if (!(stopWords instanceof Set)) {
      throw invalidArgument(`Bm25Index: stopWords must be a Set of tokens, got ${typeof stopWords}.`);
    }
    this.k1 = k1;
    this.b = b;
    this.#stopWords = stopWords;
  }

  /** Number of documents held (including ones with no tokens). */
  get size(): number {
    return this.#layout.size;
  }

  /** True when `doc` is indexed. */
  has(doc: number): boolean {
    return doc <= this.#maxDoc && this.#layout.slotOf(doc) !== undefined;
  }

  /** Indexes `doc` with its tokens (repeats count). `doc` must be new to this index. */
  add(doc: number, tokens: readonly string[]): void {
    checkDoc("Bm25Index.add", doc);
    const layout = this.#layout;
    if (this.has(doc)) {
      throw invalidArgument(`Bm25Index.add: doc ${doc} is already indexed; remove it first to re-index it.`);
    }
    if (!Array.isArray(tokens)) {
      throw invalidArgument(`Bm25Index.add: tokens of doc ${doc} must be an array of strings, got ${typeof tokens}.`);
    }
    for (const token of tokens) {
      if (typeof token !== "string") throw invalidArgument(`Bm25Index.add: tokens of doc ${doc} must be strings, got a ${typeof token}.`);
    }
    if (tokens.length > MAX_LENGTH)
      throw invalidArgument(`Bm25Index.add: doc ${doc} has ${tokens.length} tokens, more than the ${MAX_LENGTH} an index holds per document.`);
    // Terms keep their first-occurrence order; a repeat raises the tf of the term's pair.
    const slot = layout.open(doc);
    if (doc > this.#maxDoc) this.#maxDoc = doc;
    let length = 0;
    for (const token of tokens) {
      if (this.#stopWords.has(token)) continue;
      length++;
      layout.count(slot, layout.term(token), 1);
    }
    layout.close(slot, length);
  }

  /**
   * Indexes `doc` from its token counts rather than its tokens: its distinct tokens are `terms[ids[i]]`,
   * each occurring `tfs[i]` times, for `i` in `start..end`, in first-occurrence order. The index ends as
   * {@link add} of the tokens would leave it. For a bulk load (a user read from a format-6 snapshot, whose
   * sections keep each entry's token counts against a term list they share); `doc` must be new here.
   * Nothing of the arrays is kept, but the index remembers which of its terms each text of `terms` is
   * until its next search or remove: until then, a list given again may grow but must keep the texts it
   * had (a section's list never changes). The postings of documents added this way (or by add) are written
   * together, in one pass per list, when the index is next searched or removed from (Bm25Layout.flush).
   */
  addCounted(doc: number, terms: readonly string[], ids: ArrayLike<number>, tfs: ArrayLike<number>, start: number, end: number): void {
    checkDoc("Bm25Index.addCounted", doc);
    const layout = this.#layout;
    // Docs above every one added so far need no look-up (a build adds a user's entries in seq order).
    if (this.has(doc)) {
      throw invalidArgument(`Bm25Index.addCounted: doc ${doc} is already indexed; remove it first to re-index it.`);
    }
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && 0 <= start && start <= end && end <= ids.length && end <= tfs.length)) {
      throw invalidArgument(`Bm25Index.addCounted: start..end (${start}..${end}) of doc ${doc} is not a range of its ids and tfs.`);
    }
    if (this.#memoTerms !== terms) {
      this.#memoTerms = terms;
      this.#memo = new Int32Array(terms.length);
      // A new term list: most likely a section's, whose remaining pairs are this document's and the next ones'.
      layout.reserve(terms.length, Math.min(ids.length, tfs.length) - start);
    } else if (this.#memo.length < terms.length) {
      // The caller's list grew: the entries so far still hold.
      const memo = new Int32Array(Math.max(terms.length, this.#memo.length + (this.#memo.length >> 1)));
      memo.set(this.#memo);
      this.#memo = memo;
    }
    const memo = this.#memo;
    // Checked whole before anything changes. A term id the memo knows names a string (its list only grows).
    let tokens = 0;
    for (let i = start; i < end; i++) {
      const id = ids[i] as number;
      const tf = tfs[i] as number;
      if ((memo[id] === 0 && typeof terms[id] !== "string") || memo[id] === undefined || !(Number.isSafeInteger(tf) && tf >= 1)) {
        throw invalidArgument(`Bm25Index.addCounted: token ${i - start} of doc ${doc} is not a term with a count ≥ 1.`);
      }
      tokens += tf;
    }
    if (tokens > MAX_LENGTH)
      throw invalidArgument(`Bm25Index.addCounted: doc ${doc} counts ${tokens} tokens, more than the ${MAX_LENGTH} an index holds per document.`);
    // The document's terms and counts, stop words left out, then staged in one call.
    if (this.#pairTerms.length < end - start) {
      this.#pairTerms = new Int32Array(Math.max(64, 2 * (end - start)));
      this.#pairTfs = new Int32Array(this.#pairTerms.length);
    }
    const pairTerms = this.#pairTerms;
    const pairTfs = this.#pairTfs;
    let pairs = 0;
    let length = 0;
    for (let i = start; i < end; i++) {
      const id = ids[i] as number;
      let known = memo[id] as number;
      if (known === 0) {
        const term = terms[id] as string;
        known = this.#stopWords.has(term) ? -1 : layout.term(term) + 1;
        memo[id] = known;
      }
      if (known < 0) continue;
      const tf = tfs[i] as number;
      length += tf;
      pairTerms[pairs] = known - 1;
      // The same term twice in the counts: as add would, one posting with the tfs summed (the layout sums them).
      pairTfs[pairs++] = tf;
    }
    layout.stage(doc, pairTerms, pairTfs, pairs, length);
    if (doc > this.#maxDoc) this.#maxDoc = doc;
  }

  /** Removes `doc`; false when it was not there. Cost grows with the document's distinct terms, not the index. */
  remove(doc: number): boolean {
    const layout = this.#layout;
    const slot = doc <= this.#maxDoc ? layout.slotOf(doc) : undefined;
    if (slot === undefined) return false;
    layout.flush();
    const length = layout.info[2 * slot + 1] as number;
    // Terms the document alone held are freed, and their numbers go to the next new terms: the memo would name them.
    this.#memoTerms = null;
    this.#memo = EMPTY_MEMO;
    layout.remove(slot);
    layout.totalLength -= length;
    return true;
  }

  /**
   * The `k` best documents for the query tokens by BM25, best first. Only documents sharing at least
   * one term (score > 0) are returned; equal scores put the larger (newer) doc first.
   */
  search(queryTokens: readonly string[], k: number): ScoredDoc[] {
    if (!Array.isArray(queryTokens)) {
      throw invalidArgument(`Bm25Index.search: queryTokens must be an array of strings, got ${typeof queryTokens}.`);
    }
    checkK("Bm25Index.search", k);
    const layout = this.#layout;
    const n = layout.size;
    if (k === 0 || n === 0 || layout.totalLength === 0) return [];
    layout.flush();
    // A build is over: let go of its term list.
    this.#memoTerms = null;
    this.#memo = EMPTY_MEMO;
    // The query's distinct indexed terms in first-occurrence order: a document's score adds its
    // terms' contributions in this order, whichever way the search walks the postings.
    const query: number[] = [];
    if (this.#base > STAMP_LIMIT - n) {
      // Stamps would overflow: start again from a clean slate (once per ~2³¹ touched documents).
      for (let slot = 0; slot < n; slot++) layout.info[2 * slot] = 0;
      this.#base = 1;
    }
    const touched = this.#touched.reset();
    const queryIndex = layout.queryIndex;
    try {
      for (const term of queryTokens) {
        const t = layout.ids.get(term);
        if (t === undefined || queryIndex[t] !== -1 || this.#stopWords.has(term)) continue;
        queryIndex[t] = query.length;
        query.push(t);
      }
      // Pruning pays only with several lists to choose from and a k small next to the index (keeping
      // the k best partial scores costs more as k grows, and a large k leaves little to skip: on the
      // synthetic benchmark corpus it lost below about n / 64). Beyond MAX_PRUNED_TERMS its rounding
      // margin would not be safe; a k1 this large is absurd but could round contributions to 0 or ∞,
      // which its bounds do not model.
      if (query.length < 2 || k * PRUNE_K_FRACTION > n || query.length > MAX_PRUNED_TERMS || !(this.k1 <= 1e100)) {
        return this.#scoreAll(query, k);
      }
      return this.#scorePruned(query, k);
    } finally {
      for (const t of query) queryIndex[t] = -1;
      // Every stamp of this search falls below the next one's base.
      this.#base += touched.count;
    }
  }

  /** Scores every document holding a query term, term by term in query order. */
  #scoreAll(query: readonly number[], k: number): ScoredDoc[] {
    const layout = this.#layout;
    const n = layout.size;
    const k1 = this.k1;
    const b = this.b;
    const avgLength = layout.totalLength / n;
    const info = layout.info;
    const pool = layout.pool;
    const starts = layout.start;
    const dfs = layout.df;
    const base = this.#base;
    const touched = this.#touched;
    let postingCount = 0;
    for (const t of query) postingCount += dfs[t] as number;
    touched.reserve(Math.min(n, postingCount), this.#heap);
    const touchedSlots = touched.slots;
    const partials = touched.partials;
    const norms = touched.norms;
    const { norms: normTable, ones: oneTable } = this.#normTables(avgLength);
    let count = 0;
    for (const t of query) {
      const df = dfs[t] as number;
      const weight = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (k1 + 1);
      const end = 2 * ((starts[t] as number) + df);
      for (let p = 2 * (starts[t] as number); p < end; p += 2) {
        const slot = pool[p] as number;
        const tf = pool[p + 1] as number;
        let id = (info[2 * slot] as number) - base;
        // Written as weight · tf/(tf + …) so that with k1 = 0 the fraction is exactly 1 and equal docs tie exactly.
        if (id >= 0) {
          partials[id] = (partials[id] as number) + weight * (tf / (tf + (norms[id] as number)));
          continue;
        }
        id = count++;
        info[2 * slot] = base + id;
        touchedSlots[id] = slot;
        const length = info[2 * slot + 1] as number;
        // 0 + x is x: a first contribution needs no addition.
        if (length < NORM_TABLE) {
          norms[id] = normTable[length] as number;
          partials[id] = weight * (tf === 1 ? (oneTable[length] as number) : tf / (tf + (normTable[length] as number)));
        } else {
          const norm = k1 * (1 - b + (b * length) / avgLength);
          norms[id] = norm;
          partials[id] = weight * (tf / (tf + norm));
        }
      }
    }
    touched.count = count;
    const top = new TopK(Math.min(k, count));
    const docOf = layout.docOf;
    for (let id = 0; id < count; id++) top.offer(docOf[touchedSlots[id] as number] as number, partials[id] as number);
    return top.drain();
  }

  /**
   * Same results as {@link Bm25Index.#scoreAll}, bit for bit, without scoring every document that
   * holds a query term.
   *
   * Each term has an upper bound on what it can add to any document, and θ, the k-th best partial
   * score so far, only grows. The terms are walked rarest first, in two phases:
   *
   * 1. While the bounds of the terms not yet walked add up to θ or more, a document holding none of
   *    the walked terms could still make the top k, so every posting is scored.
   * 2. Once they add up to less, no untouched document can make it, nor any touched one whose partial
   *    score plus those bounds is below θ. The survivors (usually a few thousand at first, a few
   *    hundred after the next term, however long the lists) are kept in a list, thinned after each term
   *    as θ rises and the bounds left shrink. A term is then either walked, testing each posting
   *    against a bit set of the survivors that stays in the CPU's fastest cache, or, when it holds
   *    more documents than there are survivors, looked up per survivor in its {@link TfCodes}:
   *    the common terms, whose lists are most of the work, cost a read per survivor.
   *
   * Scores summed in rarity order can differ in the last bit from #scoreAll's query-order sums, except
   * for documents matching at most two query terms (0 + x + y = 0 + y + x exactly). So the few other
   * documents whose score is near or above the k-th best are scored again in query order, from their
   * own records.
   */
  #scorePruned(query: readonly number[], k: number): ScoredDoc[] {
    const layout = this.#layout;
    const n = layout.size;
    const m = query.length;
    const k1 = this.k1;
    const b = this.b;
    const avgLength = layout.totalLength / n;
    const info = layout.info;
    const pool = layout.pool;
    const starts = layout.start;
    const dfs = layout.df;
    const base = this.#base;
    if (this.#weights.length < m + 1) {
      this.#weights = new Float64Array(2 * m + 1);
      this.#order = new Float64Array(2 * m + 1);
      this.#remaining = new Float64Array(2 * m + 1);
    }
    const weights = this.#weights;
    // Rarest first, ties in query order: sorting df · MAX_PRUNED_TERMS + j as plain numbers (exact
    // below 2⁵³) needs no comparator.
    const order = this.#order.subarray(0, m);
    for (let j = 0; j < m; j++) {
      const df = dfs[query[j] as number] as number;
      weights[j] = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (k1 + 1);
      order[j] = df * MAX_PRUNED_TERMS + j;
    }
    order.sort();
    for (let s = 0; s < m; s++) order[s] = (order[s] as number) % MAX_PRUNED_TERMS;
    // remaining[s] bounds what the terms order[s..] can add to one document. A term adds
    // weight · tf/(tf + k1·(1 − b + b·length/avgLength)) = weight / (1 + k1·(1 − b)/tf + k1·b·(length/tf)/avgLength),
    // at most weight / (1 + k1·(1 − b)/maxTf + k1·b·minRatio/avgLength).
    const remaining = this.#remaining;
    remaining[m] = 0;
    for (let s = m - 1; s >= 0; s--) {
      const j = order[s] as number;
      const t = query[j] as number;
      const maxTf = layout.maxTf[t] as number;
      const minRatio = layout.minRatio[t] as number;
      remaining[s] = (remaining[s + 1] as number) + (weights[j] as number) / (1 + (k1 * (1 - b)) / maxTf + (k1 * b * minRatio) / avgLength);
    }
    if (this.#aliveBits.length < (n + 31) >> 5) this.#aliveBits = new Int32Array((info.length / 2 + 31) >> 5);
    const bits = this.#aliveBits;
    const capacity = Math.min(k, n);
    // The k best partial scores so far, by touched document; θ, the k-th best, is its root.
    const heap = this.#heap.reset(capacity);
    const touched = this.#touched;
    let count = 0;
    let s = 0;
    // The heap's root once it is full: a partial score at most this leaves the heap as it is.
    let root = -Infinity;

    const { norms: normTable, ones: oneTable } = this.#normTables(avgLength);

    // Phase 1: every posting. A first contribution needs no addition (0 + x is x).
    for (; s < m; s++) {
      if (heap.size === capacity && (heap.scores[0] as number) * SAFE > (remaining[s] as number)) break;
      const j = order[s] as number;
      const t = query[j] as number;
      const weight = weights[j] as number;
      const df = dfs[t] as number;
      const end = 2 * ((starts[t] as number) + df);
      touched.reserve(Math.min(n, count + df), heap);
      // Per touched document: MATCH_ONE × how many query terms it matched (saturating at 3), plus
      // the IN_HEAP flag.
      const { slots: touchedSlots, partials, norms, marks } = touched;
      for (let p = 2 * (starts[t] as number); p < end; p += 2) {
        const slot = pool[p] as number;
        const tf = pool[p + 1] as number;
        let id = (info[2 * slot] as number) - base;
        let partial: number;
        let mark: number;
        if (id >= 0) {
          partial = (partials[id] as number) + weight * (tf / (tf + (norms[id] as number)));
          mark = marks[id] as number;
        } else {
          // The same first contribution as in #scoreAll (the property tests hold the two to the same bits),
          // written out here too: a shared method measured ~6 % slower on 100k-document searches.
          id = count++;
          info[2 * slot] = base + id;
          touchedSlots[id] = slot;
          const length = info[2 * slot + 1] as number;
          if (length < NORM_TABLE) {
            norms[id] = normTable[length] as number;
            partial = weight * (tf === 1 ? (oneTable[length] as number) : tf / (tf + (normTable[length] as number)));
          } else {
            const norm = k1 * (1 - b + (b * length) / avgLength);
            norms[id] = norm;
            partial = weight * (tf / (tf + norm));
          }
          mark = 0;
        }
        partials[id] = partial;
        if ((mark & IN_HEAP) === 0 && partial <= root) {
          marks[id] = mark < MATCH_MANY ? mark + MATCH_ONE : mark;
        } else {
          marks[id] = keepPartial(heap, marks, id, mark, partial);
          if (heap.size === capacity) root = heap.scores[0] as number;
        }
      }
    }
    touched.count = count;
    const { slots: touchedSlots, partials, norms, marks } = touched;

    // Phase 2: only the survivors. Skipping a document whose partial score is below `floor` is safe:
    // even with every remaining term at its bound it stays below θ, and since θ only grows and the
    // bounds only shrink, it stays skipped, so the survivors' scores are complete at the end. The
    // survivors are the touched documents at first, then the ones kept by the step before.
    const phase2 = s < m;
    const survivors = this.#alive.reserve(count);
    let size = count;
    for (let first = true; s < m; s++, first = false) {
      const floor = (heap.scores[0] as number) * SAFE - (remaining[s] as number);
      const j = order[s] as number;
      const t = query[j] as number;
      const weight = weights[j] as number;
      const df = dfs[t] as number;
      const from = 2 * (starts[t] as number);
      let codes = layout.codes[t] as TfCodes | null;
      let kept = 0;
      if (size * PROBE_COST < df && (codes !== null || df * CODES_FRACTION >= n)) {
        if (codes === null) {
          codes = TfCodes.fromPairs(pool, starts[t] as number, df, n);
          layout.codes[t] = codes;
        }
        for (let c = 0; c < size; c++) {
          const id = first ? c : (survivors[c] as number);
          const partial = partials[id] as number;
          if (partial < floor) continue;
          survivors[kept++] = id;
          let tf = codes.get(touchedSlots[id] as number);
          if (tf === 0) continue;
          if (tf === 3) tf = layout.tfOf(touchedSlots[id] as number, t);
          const grown = partial + weight * (tf / (tf + (norms[id] as number)));
          partials[id] = grown;
          marks[id] = keepPartial(heap, marks, id, marks[id] as number, grown);
        }
        size = kept;
        continue;
      }
      for (let c = 0; c < size; c++) {
        const id = first ? c : (survivors[c] as number);
        if ((partials[id] as number) < floor) continue;
        survivors[kept++] = id;
        const slot = touchedSlots[id] as number;
        bits[slot >> 5] = (bits[slot >> 5] as number) | (1 << (slot & 31));
      }
      size = kept;
      for (let p = from, end = from + 2 * df; p < end; p += 2) {
        const slot = pool[p] as number;
        if (((bits[slot >> 5] as number) & (1 << (slot & 31))) === 0) continue;
        const id = (info[2 * slot] as number) - base;
        const tf = pool[p + 1] as number;
        const grown = (partials[id] as number) + weight * (tf / (tf + (norms[id] as number)));
        partials[id] = grown;
        marks[id] = keepPartial(heap, marks, id, marks[id] as number, grown);
      }
      for (let c = 0; c < size; c++) bits[(touchedSlots[survivors[c] as number] as number) >> 5] = 0;
    }

    // This floor is at least every earlier one, so the documents at or above it were never skipped
    // and their scores are complete: they are the ones that can be in the top k.
    const floor = heap.size === capacity ? (heap.scores[0] as number) * SAFE : -Infinity;
    const docOf = layout.docOf;
    const top = new TopK(Math.min(k, size));
    for (let c = 0; c < size; c++) {
      const id = phase2 ? (survivors[c] as number) : c;
      const partial = partials[id] as number;
      if (partial < floor) continue;
      const slot = touchedSlots[id] as number;
      const score = (marks[id] as number) < MATCH_MANY ? partial : this.#rescore(slot, info[2 * slot + 1] as number, query, weights, avgLength);
      top.offer(docOf[slot] as number, score);
    }
    return top.drain();
  }

  /**
   * k1 · lengthNorm for the document lengths below NORM_TABLE, and 1 / (1 + that), the tf/(tf + …) of
   * a term held once: the same expressions as in the scoring loops, so the same values, without their
   * two divisions per document. Recomputed only when the average length changed.
   */
  #normTables(avgLength: number): { norms: Float64Array; ones: Float64Array } {
    const tables = (this.#tables ??= { avgLength: Number.NaN, norms: new Float64Array(NORM_TABLE), ones: new Float64Array(NORM_TABLE) });
    if (tables.avgLength !== avgLength) {
      const k1 = this.k1;
      const b = this.b;
      for (let length = 0; length < NORM_TABLE; length++) {
        const norm = k1 * (1 - b + (b * length) / avgLength);
        tables.norms[length] = norm;
        tables.ones[length] = 1 / (1 + norm);
      }
      tables.avgLength = avgLength;
    }
    return tables;
  }

  /** The document's score, adding its query terms' contributions in query order as #scoreAll does. */
  #rescore(slot: number, length: number, query: readonly number[], weights: Float64Array, avgLength: number): number {
    const layout = this.#layout;
    const docPool = layout.docPool;
    const pool = layout.pool;
    const starts = layout.start;
    const first = layout.docStart[slot] as number;
    const last = first + (layout.docTerms[slot] as number);
    const k1 = this.k1;
    const lengthNorm = 1 - this.b + (this.b * length) / avgLength;
    const m = query.length;
    let score = 0;
    if (m <= RESCORE_BY_IDENTITY) {
      // Compare the document's terms with the query's by number: reading each term's queryIndex
      // would touch the document's other terms, seldom in cache.
      for (let j = 0; j < m; j++) {
        const t = query[j] as number;
        for (let e = first; e < last; e++) {
          if (docPool[2 * e] !== t) continue;
          const tf = pool[2 * ((starts[t] as number) + (docPool[2 * e + 1] as number)) + 1] as number;
          score = score + (weights[j] as number) * (tf / (tf + k1 * lengthNorm));
          break;
        }
      }
      return score;
    }
    if (this.#rescoreTerms.length < m) {
      this.#rescoreTerms = new Int32Array(m);
      this.#rescoreTfs = new Float64Array(m);
    }
    const terms = this.#rescoreTerms;
    const tfs = this.#rescoreTfs;
    let count = 0;
    const queryIndex = layout.queryIndex;
    for (let e = first; e < last; e++) {
      const t = docPool[2 * e] as number;
      const q = queryIndex[t] as number;
      if (q < 0) continue;
      // Insertion into query order: a memory has few terms.
      let at = count++;
      while (at > 0 && (terms[at - 1] as number) > q) {
        terms[at] = terms[at - 1] as number;
        tfs[at] = tfs[at - 1] as number;
        at--;
      }
      terms[at] = q;
      tfs[at] = pool[2 * ((starts[t] as number) + (docPool[2 * e + 1] as number)) + 1] as number;
    }
    for (let i = 0; i < count; i++) {
      const tf = tfs[i] as number;
      score = score + (weights[terms[i] as number] as number) * (tf / (tf + k1 * lengthNorm));
    }
    return score;
  }
}

/** The pruned search runs only when k ≤ n / PRUNE_K_FRACTION (n: documents held). */
const PRUNE_K_FRACTION = 64;
/** Most distinct query terms the pruned search takes; see the margin argument in #scorePruned. */
const MAX_PRUNED_TERMS = 4096;
/**
 * Pruning compares a partial score plus bounds with θ · SAFE, a hair below the k-th best partial
 * score θ. A sum of up to MAX_PRUNED_TERMS positive floats, in any order, is within a relative
 * MAX_PRUNED_TERMS · 2⁻⁵³ < 1e-12 of the exact sum, and each bound is within a few roundings of the
 * exact one; the 1e-9 margin dwarfs both. So a document left out scores, in any summation order,
 * strictly less than each of the k documents holding the k best partial scores, and ties are unaffected.
 */
const SAFE = (1 - 1e-9) / (1 + 1e-9);
/** Document lengths below this take their length norm from a table made once per average length. */
const NORM_TABLE = 64;
/** #rescore matches a document's terms to the query's by identity up to this many query terms. */
const RESCORE_BY_IDENTITY = 64;
/** Largest search stamp: stamps are Int32. */
const STAMP_LIMIT = 0x7fffffff;
/** Mark flag: the document is in the heap of the k best partial scores. */
const IN_HEAP = 1;
/** Mark unit counting the query terms a document matched; MATCH_MANY (3 or more) needs a rescore. */
const MATCH_ONE = 4;
const MATCH_MANY = 3 * MATCH_ONE;
/**
 * The second phase looks a term up per survivor, rather than walking its postings, when the term holds
 * more than PROBE_COST times as many documents as there are survivors.
 */
const PROBE_COST = 1;
/** A term gets TfCodes (n / 4 bytes) when it is held by at least 1 / CODES_FRACTION of the n documents… */
const CODES_FRACTION = 16;
/** …and loses them when it falls below 1 / CODES_DROP (bm25-layout.ts). */
void CODES_DROP;
/** Most tokens a document may count: lengths are kept as Int32. */
const MAX_LENGTH = 0x7fffffff;
/** addCounted's memo when no build is under way. */
const EMPTY_MEMO = new Int32Array(0);

/** Records a document's grown partial score in the heap of the k best; returns its new mark. */
function keepPartial(heap: PartialHeap, marks: Uint8Array, id: number, mark: number, partial: number): number {
  let next = mark < MATCH_MANY ? mark + MATCH_ONE : mark;
  if ((mark & IN_HEAP) !== 0) {
    heap.increase(id, partial);
  } else if (heap.size < heap.capacity) {
    heap.push(id, partial);
    next |= IN_HEAP;
  } else if (partial > (heap.scores[0] as number)) {
    const out = heap.replaceRoot(id, partial);
    marks[out] = (marks[out] as number) & ~IN_HEAP;
    next |= IN_HEAP;
  }
  return next;
}

/**
 * What a search knows of each document it touched, by touch order (its id): slot, partial score,
 * k1 × length norm, and #scorePruned's mark. The arrays are kept between searches and only grow.
 */
class TouchedDocs {
  slots = new Int32Array(0);
  partials = new Float64Array(0);
  norms = new Float64Array(0);
  marks = new Uint8Array(0);
  /** How many documents the current search touched (set when it finishes touching). */
  count = 0;

  reset(): this {
    this.count = 0;
    return this;
  }

  /** Makes room for `size` documents, keeping the first ones' data; the heap's positions grow alongside. */
  reserve(size: number, heap: PartialHeap): void {
    if (this.slots.length >= size) return;
    const grown = Math.max(size, 2 * this.slots.length, 64);
    this.slots = copyInto(new Int32Array(grown), this.slots);
    this.partials = copyInto(new Float64Array(grown), this.partials);
    this.norms = copyInto(new Float64Array(grown), this.norms);
    this.marks = copyInto(new Uint8Array(grown), this.marks);
    heap.positions = copyInto(new Int32Array(grown), heap.positions);
  }
}

function copyInto<T extends Int32Array | Float64Array | Uint8Array>(to: T, from: T): T {
  to.set(from);
  return to;
}

/** An array of touched-document ids kept between searches. */
class IdList {
  items = new Int32Array(0);

  /** The array, with room for `size` ids. */
  reserve(size: number): Int32Array {
    if (this.items.length < size) this.items = new Int32Array(Math.max(size, 2 * this.items.length));
    return this.items;
  }
}

/**
 * A bounded min-heap of (touched-document id, partial score) whose root is the k-th best partial
 * score once full. A document's score can grow in place, so each is in it at most once.
 */
class PartialHeap {
  ids = new Int32Array(0);
  scores = new Float64Array(0);
  /** id → its index in the heap; meaningful only while the document is in the heap. Grown by TouchedDocs. */
  positions = new Int32Array(0);
  capacity = 0;
  size = 0;

  /** Empties the heap for up to `capacity` documents, reusing the arrays when large enough. */
  reset(capacity: number): this {
    if (this.ids.length < capacity) {
      this.ids = new Int32Array(Math.max(capacity, 2 * this.ids.length));
      this.scores = new Float64Array(this.ids.length);
    }
    this.capacity = capacity;
    this.size = 0;
    return this;
  }

  /** Adds a document not in the heap; the heap must not be full. */
  push(id: number, score: number): void {
    const ids = this.ids;
    const scores = this.scores;
    let hole = this.size++;
    while (hole > 0) {
      const parent = (hole - 1) >> 1;
      const parentScore = scores[parent] as number;
      if (parentScore <= score) break;
      this.#place(hole, ids[parent] as number, parentScore);
      hole = parent;
    }
    this.#place(hole, id, score);
  }

  /** Puts a document not in the heap in place of the root (the worst); returns the id it pushed out. */
  replaceRoot(id: number, score: number): number {
    const out = this.ids[0] as number;
    this.#siftDown(0, id, score);
    return out;
  }

  /** Raises the score of a document in the heap. */
  increase(id: number, score: number): void {
    this.#siftDown(this.positions[id] as number, id, score);
  }

  #siftDown(hole: number, id: number, score: number): void {
    const ids = this.ids;
    const scores = this.scores;
    const size = this.size;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= size) break;
      if (child + 1 < size && (scores[child + 1] as number) < (scores[child] as number)) child++;
      const childScore = scores[child] as number;
      if (childScore >= score) break;
      this.#place(hole, ids[child] as number, childScore);
      hole = child;
    }
    this.#place(hole, id, score);
  }

  #place(at: number, id: number, score: number): void {
    this.ids[at] = id;
    this.scores[at] = score;
    this.positions[id] = at;
  }
}
