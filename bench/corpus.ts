// A deterministic synthetic chat-memory corpus and queries for the benchmarks: no data files, same text on every run.

import { seededRandom } from "../eval/metrics.ts";

// English function words, mixed into every sentence at about the rate chat text has them.
const FUNCTION_WORDS = "i my me we our you the a an to of in on at for with and but so that this it was is are have had will would can just really".split(" ");

const SYLLABLES = "ka lo mi nu re sa ti vo be da fe gi ho ju ke la ma ne po qu ri su to va we xi yo ze bra cle dri fla gro pla sto tri".split(" ");
const ENDINGS = ["", "", "", "s", "ed", "ing", "er", "ly"];

/** A pseudo-word vocabulary: 2–3 syllables plus an English-like ending, so the stemmer has work to do. */
function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 2);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(w + ENDINGS[Math.floor(random() * ENDINGS.length)]);
  }
  return [...words];
}

/** Zipf-like pick: rank r with weight 1 / (r + 2). */
function zipfPicker(count: number, random: () => number): () => number {
  const cdf = new Float64Array(count);
  let total = 0;
  for (let r = 0; r < count; r++) {
    total += 1 / (r + 2);
    cdf[r] = total;
  }
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface Corpus {
  docs: string[];
  queries: string[];
  /** For each query, the index of the memory it was drawn from. */
  querySources: number[];
}

/**
 * `size` memories of 6–30 words (about 60 % content words drawn Zipf-like from 20,000 pseudo-words,
 * 40 % function words), each ending in a number so no two are equal; and `queryCount` queries, each
 * 2–4 content words of a random memory plus filler, so most queries have a right answer.
 */
export function makeCorpus(size: number, queryCount: number, seed = 42): Corpus {
  const random = seededRandom(seed);
  const vocab = vocabulary(20_000, random);
  const pick = zipfPicker(vocab.length, random);
  const docs: string[] = [];
  const contentOf: string[][] = [];
  for (let d = 0; d < size; d++) {
    const length = 6 + Math.floor(random() * 25);
    const words: string[] = [];
    const content: string[] = [];
    for (let i = 0; i < length; i++) {
      if (random() < 0.4) words.push(FUNCTION_WORDS[Math.floor(random() * FUNCTION_WORDS.length)] as string);
      else {
        const w = vocab[pick()] as string;
        words.push(w);
        content.push(w);
      }
    }
    words.push(String(d));
    docs.push(words.join(" "));
    contentOf.push(content);
  }
  const queries: string[] = [];
  const querySources: number[] = [];
  for (let q = 0; q < queryCount; q++) {
    const source = Math.floor(random() * size);
    querySources.push(source);
    const content = contentOf[source] as string[];
    const n = Math.min(content.length, 2 + Math.floor(random() * 3));
    const chosen: string[] = [];
    for (let i = 0; i < n; i++) chosen.push(content[Math.floor(random() * content.length)] as string);
    queries.push(`what did i say about ${chosen.join(" and ")}`);
  }
  return { docs, queries, querySources };
}
