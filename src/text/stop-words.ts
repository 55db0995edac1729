// English function words that carry no topic: left out of BM25 and given little weight by the hashing embedder.

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
