// Tests of the sentence splitter: English and CJK end marks, line breaks, abbreviations, numbers.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { splitSentences } from "./sentences.ts";

describe("splitSentences", () => {
  it("splits at . ! ? … followed by a space, whatever the case of the next word", () => {
    expect(splitSentences("Hi! I moved to Shenzhen. Can I eat peanuts?")).toEqual(["Hi!", "I moved to Shenzhen.", "Can I eat peanuts?"]);
    expect(splitSentences("ok. i live in paris. i work at google")).toEqual(["ok.", "i live in paris.", "i work at google"]);
    expect(splitSentences("Really?! Wow... that's it")).toEqual(["Really?!", "Wow...", "that's it"]);
    expect(splitSentences('She said "hi." Then she left.')).toEqual(['She said "hi."', "Then she left."]);
  });

  it("splits at 。！？ wherever they stand, and at every line break", () => {
    expect(splitSentences("今天好累啊哈哈。对了,我是素食者。")).toEqual(["今天好累啊哈哈。", "对了,我是素食者。"]);
    expect(splitSentences("我能吃花生吗？我对花生过敏！谢谢")).toEqual(["我能吃花生吗？", "我对花生过敏！", "谢谢"]);
    expect(splitSentences("first line\nsecond line\r\nthird")).toEqual(["first line", "second line", "third"]);
  });

  it("keeps titles, initials, decimals and 'No. 5' inside a sentence", () => {
    expect(splitSentences("Meeting with Dr. Weber on Friday at 10:00")).toEqual(["Meeting with Dr. Weber on Friday at 10:00"]);
    expect(splitSentences("I love J. K. Rowling. She is great")).toEqual(["I love J. K. Rowling.", "She is great"]);
    expect(splitSentences("Pi is 3.14 and my flat is No. 5 on the street")).toEqual(["Pi is 3.14 and my flat is No. 5 on the street"]);
    expect(splitSentences("So am I. I live in Paris")).toEqual(["So am I.", "I live in Paris"]);
    expect(splitSentences("No. I live in Paris")).toEqual(["No.", "I live in Paris"]);
  });

  it("returns no empty sentences and loses no word (property)", () => {
    const piece = fc.constantFrom("I live in Paris", "Dr.", "3.14", "?!", "。", "我住在北京", "\n", " ", "...", "ok.", "e.g.", "…");
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((p) => p.join(" ")),
        (text) => {
          const sentences = splitSentences(text);
          for (const s of sentences) {
            expect(s.length).toBeGreaterThan(0);
            expect(s).toBe(s.trim());
          }
          expect(sentences.join("").replace(/\s+/g, "")).toBe(text.replace(/\s+/g, ""));
        },
      ),
      { numRuns: 300 },
    );
  });
});
