// Tests of fact anchors: the numbers, identifiers, names, dates, negations and relations that make two facts different.

import { describe, it, expect } from "vitest";
import { AnchorComparer, anchorsOf } from "./fact-anchors.ts";
import { DEFAULT_LANGUAGES } from "./patterns/default-languages.ts";

const anchors = (text: string): string[] => [...anchorsOf(text, DEFAULT_LANGUAGES)].sort();

describe("anchorsOf", () => {
  it("finds numbers, identifiers, names, dates, negations and relations", () => {
    expect(anchors("My order #1234 shipped today")).toEqual(["#1234", "today"]);
    expect(anchors("I booked flight LH721 to Munich on Friday")).toEqual(["friday", "lh721", "munich"]);
    expect(anchors("I had lunch with Anna and two friends")).toEqual(["anna", "friends", "two"]);
    expect(anchors("I don't like spicy food")).toEqual(["¬"]);
    expect(anchors("My son plays football")).toEqual(["son"]);
    expect(anchors("我的订单1234已经发货了")).toEqual(["1234"]);
    expect(anchors("我周一和小王去看了电影")).toContain("小王");
    expect(anchors("我周一和小王去看了电影")).toContain("周一");
  });

  it("does not take a sentence's first word, or 'I', for a name; does take a name that starts a sentence", () => {
    expect(anchors("I live in Paris")).toEqual(["paris"]);
    expect(anchors("Yesterday I went out. Maybe I'll stay in")).toEqual(["yesterday"]);
    expect(anchors("Tom from accounting helped me")).toEqual(["tom"]);
    expect(anchors("My wife's birthday")).toEqual(["wife"]);
  });

  it("compares two facts by their anchors", () => {
    const comparer = new AnchorComparer(DEFAULT_LANGUAGES);
    expect(comparer.difference("I'm allergic to peanuts, never suggest peanut dishes", "I'm allergic to peanuts, never suggest peanut desserts")).toEqual([]);
    expect(comparer.difference("My order #1234 shipped", "My order #5678 shipped")).toEqual(['"#1234"', '"#5678"']);
    expect(comparer.difference("I like spicy food", "I don't like spicy food")).toEqual(["a negation"]);
  });
});
