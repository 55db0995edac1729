// Tests of the light English stemmer: which forms meet, and which words it must leave alone.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { stemEnglish } from "./english-stem.ts";

describe("stemEnglish", () => {
  it("folds plurals, -ed, -ing and a final -e onto one stem", () => {
    const cases: Array<[string, string]> = [
      ["paints", "paint"],
      ["painted", "paint"],
      ["painting", "paint"],
      ["hike", "hik"],
      ["hikes", "hik"],
      ["hiked", "hik"],
      ["hiking", "hik"],
      ["running", "run"],
      ["stopped", "stop"],
      ["planned", "plan"],
      ["parties", "party"],
      ["married", "marry"],
      ["classes", "class"],
      ["watches", "watch"],
      ["falling", "fall"],
      ["missed", "miss"],
      ["kids", "kid"],
    ];
    for (const [word, stem] of cases) expect(stemEnglish(word), word).toBe(stem);
  });

  it("leaves short words, -ss/-us/-is endings, -eed and vowel-less stems alone", () => {
    for (const word of ["cat", "bus", "class", "campus", "analysis", "speed", "agreed", "need", "string", "spring", "bring", "free", "tree"]) {
      expect(stemEnglish(word), word).toBe(word);
    }
  });

  it("leaves anything that is not a lower-case ASCII word alone", () => {
    for (const word of ["Painted", "années", "mp3s", "don't", "3.14", "花生", ""]) expect(stemEnglish(word)).toBe(word);
  });

  it("returns a non-empty prefix of the word, or the word with -y for -ies/-ied", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{0,12}$/), (word) => {
        const stem = stemEnglish(word);
        if (word.length === 0) return stem === "";
        expect(stem.length).toBeGreaterThan(0);
        const prefix = stem.endsWith("y") && !word.startsWith(stem) ? stem.slice(0, -1) : stem;
        expect(word.startsWith(prefix)).toBe(true);
        return true;
      }),
    );
  });
});
