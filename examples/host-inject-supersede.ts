// Example: the host plugs in its own embedder and extractor; a fact that changed supersedes the old one.
//
// Run: npm run build && npx tsx examples/host-inject-supersede.ts
//
// The extractor here is a few regular expressions and the embedder hashes letter trigrams, so the example
// needs no key and no network. In an application they would be model-backed (see `moomem/openai`); the
// store uses them the same way.

import { MemoryStore, type ChatMessage, type Embedder, type ExtractedFact, type Extractor } from "moomem";

/** Finds a few kinds of facts and names the slot each fills (`key`), so a new value replaces the old one. */
class KeywordExtractor implements Extractor {
  readonly mode = "keyword-rules";
  readonly #rules: Array<{ pattern: RegExp; key: string; kind: ExtractedFact["kind"]; say: (m: RegExpExecArray) => string }> = [
    { pattern: /\b(?:live in|moved to)\s+([A-Z][a-z]+(?:\s[A-Z][a-z]+)*)/, key: "home_city", kind: "fact", say: (m) => `Lives in ${m[1]}` },
    { pattern: /\ballergic to\s+([\w\s]+?)(?:[.,!]|$)/, key: "allergy", kind: "fact", say: (m) => `Allergic to ${m[1]}` },
    { pattern: /\b(?:work as|I'm) an? (nurse|teacher|engineer|chef)\b/, key: "job", kind: "fact", say: (m) => `Works as a ${m[1]}` },
    { pattern: /\bI (?:prefer|love|like)\s+([\w\s]+?)(?:[.,!]|$)/, key: "likes", kind: "preference", say: (m) => `Likes ${m[1]}` },
  ];

  extract(_userId: string, input: string | readonly ChatMessage[]): Promise<ExtractedFact[]> {
    const text =
      typeof input === "string"
        ? input
        : input
            .filter((m) => m.role === "user")
            .map((m) => m.content)
            .join("\n");
    const facts: ExtractedFact[] = [];
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      for (const rule of this.#rules) {
        const match = rule.pattern.exec(sentence);
        if (match !== null) facts.push({ content: rule.say(match), kind: rule.kind, key: rule.key, sourceSpan: sentence.trim() });
      }
    }
    // Small talk yields no facts, so nothing is stored for it.
    return Promise.resolve(facts);
  }
}

/** Letter trigrams hashed into 128 buckets: deterministic, offline. `id` names the space, so a store never mixes vectors. */
class TrigramEmbedder implements Embedder {
  readonly id = "example/trigram-128";
  readonly dim = 128;

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => this.#one(text)));
  }

  #one(text: string): Float32Array {
    const v = new Float32Array(this.dim);
    const s = ` ${text.toLowerCase()} `;
    for (let i = 0; i + 3 <= s.length; i++) {
      let h = 2166136261;
      for (let j = i; j < i + 3; j++) h = Math.imul(h ^ s.charCodeAt(j), 16777619);
      v[(h >>> 0) % this.dim]! += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  }
}

const USER = "user-7";
const mem = await MemoryStore.open(":memory:", { embedder: new TrigramEmbedder(), extractor: new KeywordExtractor() });

for (const said of [
  "Hi there, how are you today?",
  "I live in Beijing. I work as a nurse, and I'm allergic to shellfish.",
  "Big news: I moved to Shenzhen last week!",
]) {
  const summary = await mem.add(USER, said);
  console.log(`said: ${JSON.stringify(said)}`);
  if (summary.extracted === 0) console.log("  (no facts: nothing stored)");
  for (const fact of summary.facts) {
    const replaced = fact.replaced === undefined ? "" : `, supersedes ${fact.replaced.join(", ")}`;
    console.log(`  ${fact.action} [${fact.key}] ${fact.content}${replaced}`);
  }
}

const hits = await mem.recall(USER, "Which city does the user live in?", { topK: 1 });
console.log(`recall "Which city does the user live in?" -> ${hits[0]?.content ?? "(nothing)"}`);

// The old value is still on record, as superseded, with the reason the judge gave.
const current = hits[0]!;
console.log("history of the home_city slot:");
for (const entry of await mem.history(USER, current.id)) {
  const why = entry.lifecycle?.conflictReason === undefined ? "" : ` (${entry.lifecycle.conflictReason})`;
  console.log(`  ${entry.status.padEnd(10)} ${entry.content}${why}`);
}
await mem.close();
