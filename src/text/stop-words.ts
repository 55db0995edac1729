// Function words that carry no topic (English, Chinese): left out of BM25 and of the relevance floor; the hashing embedder gives English ones little weight.

// Lower case, after the tokenizer's folding ("it's" reaches here as "it"). The tokenizer leaves these
// words unstemmed, so the list holds surface forms. Pronouns, determiners, auxiliaries and modals,
// prepositions, conjunctions, question words and a few filler adverbs; no content words.
const WORDS = `
a an the this that these those some any each every either neither both all no not nor
i me my mine myself we us our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs themselves
one ones someone something anyone anything everyone everything
am is are was were be been being do does did doing done have has had having
can could will would shall should may might must ought
i'm i've i'll i'd you're you've you'll you'd we're we've we'll we'd they're they've they'll they'd
he'd he'll she'd she'll don't doesn't didn't isn't aren't wasn't weren't haven't hasn't hadn't
can't cannot couldn't won't wouldn't shouldn't let's
of to in on at by for with from into onto upon about above below over under between among
through during before after since until till against without within along across around
off out up down than as via per
and or but if then else so because while whereas although though yet also too either
what which who whom whose when where why how whether
there here now just very really quite rather such same other another more most much many few
only own again ever even still already soon

`;

/** The stop words, as a set of lower-case tokens. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter((w) => w.length > 0));

// Chinese function characters (simplified and traditional forms): pronouns, particles, auxiliaries, modals,
// prepositions, conjunctions, question words and degree adverbs. A query such as 我能吃花生吗 shares 我 with
// every memory its user ever wrote; like "I" and "can" in English, these carry no topic.
const CJK_CHARACTERS = `
我 你 您 他 她 它 们 們 咱 俺 的 地 得 了 着 著 过 過 吗 嗎 呢 吧 啊 呀 哦 嘛 么 麼 啦 嗯 呗 唄
是 在 有 和 与 與 及 或 也 都 就 还 還 又 才 很 太 更 最 不 没 沒 别 這 这 那 哪 什 怎 谁 誰 个 個 些
把 被 对 對 给 給 从 從 向 往 为 為 以 于 於 而 但 所 能 会 會 要 想 可 该 該 让 讓 其 之 此 每 各 某 即 则 則 且 并 並
`;

/** Longer Chinese function words the segmenter may return whole (two-character ones are covered by the pairs). */
const CJK_WORDS = "为什么 為什麼 是不是 有没有 有沒有 能不能 可不可以 会不会 會不會 要不要 什么样 什麼樣 我们的 我們的 你们的 你們的 他们的 他們的";

/** The single Chinese function characters, as a set. */
export const CJK_STOP_CHARACTERS: ReadonlySet<string> = new Set(CJK_CHARACTERS.split(/\s+/).filter((w) => w.length > 0));

/**
 * True for a Chinese token that carries no topic: a function character, a pair of them (the
 * tokenizer's bigrams: 我的 and 是不 are, 能吃 is not), or one of a few longer function words.
 */
export function isCjkStopToken(token: string): boolean {
  if (token.length === 1) return CJK_STOP_CHARACTERS.has(token);
  if (token.length === 2) return CJK_STOP_CHARACTERS.has(token[0] as string) && CJK_STOP_CHARACTERS.has(token[1] as string);
  return CJK_LONG_WORDS.has(token);
}

const CJK_LONG_WORDS: ReadonlySet<string> = new Set(CJK_WORDS.split(" "));

/**
 * English and Chinese stop words together, what BM25 leaves out by default. A `Set` of the English
 * words and the Chinese characters and long words whose `has` also answers true for every pair of
 * Chinese function characters (about 12,000 bigrams, not stored one by one). Iteration and `size`
 * cover only the stored words.
 */
class StopWordSet extends Set<string> {
  override has(token: string): boolean {
    return super.has(token) || (token.length === 2 && isCjkStopToken(token));
  }
}

export const STOP_WORDS: ReadonlySet<string> = new StopWordSet([...ENGLISH_STOP_WORDS, ...CJK_STOP_CHARACTERS, ...CJK_LONG_WORDS]);
