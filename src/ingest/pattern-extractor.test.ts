// Tests of the offline extractor: what it drops (questions, small talk), which slots it keys, what it keeps as said.

import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { PatternExtractor } from "./pattern-extractor.ts";
import { readClauses } from "./pattern-engine.ts";
import { DEFAULT_LANGUAGES } from "./patterns/default-languages.ts";
import { ENGLISH } from "./patterns/en.ts";
import type { LanguageTable } from "./language-table.ts";
import type { ExtractedFact } from "../types.ts";
import { stripMemoryContext } from "../text/context-markers.ts";

const extractor = new PatternExtractor();
const extract = (text: string): Promise<ExtractedFact[]> => extractor.extract("u", text);

/** [what the user said, the key it must fill, the kind] */
type Keyed = [string, string, ExtractedFact["kind"]];

const ENGLISH_SLOTS: Keyed[] = [
  ["I live in Beijing", "home_city", "fact"],
  ["I moved to Shenzhen", "home_city", "fact"],
  ["We've just relocated to Munich", "home_city", "fact"],
  ["My wife and I live in Lyon", "home_city", "fact"],
  ["I no longer live in Paris", "home_city", "fact"],
  ["My mother lives in Lisbon", "mother_home_city", "fact"],
  ["I'm originally from Leeds", "hometown", "fact"],
  ["I'm from Leeds", "hometown", "fact"],
  ["I grew up in York", "hometown", "fact"],
  ["I was born in Shanghai", "birthplace", "fact"],
  ["I was born in 1990", "birth_year", "fact"],
  ["I work at Google", "employer", "fact"],
  ["I started a new job at Microsoft", "employer", "fact"],
  ["I quit my job", "employer", "fact"],
  ["My wife works at Google", "partner_employer", "fact"],
  ["I work as a nurse", "job_title", "fact"],
  ["I'm a software engineer now", "job_title", "fact"],
  ["I'm retired", "job_title", "fact"],
  ["My mother is a teacher", "mother_job_title", "fact"],
  ["I study at MIT", "school", "fact"],
  ["My son goes to Lincoln Elementary", "son_school", "fact"],
  ["My name is Robert", "name", "fact"],
  ["Call me Bob", "preferred_name", "preference"],
  ["Please call me Rob", "preferred_name", "preference"],
  ["I'm 29 years old", "age", "fact"],
  ["I turned 42 last week", "age", "fact"],
  ["My birthday is on March 3", "birthday", "fact"],
  ["My wife's birthday is in May", "partner_birthday", "fact"],
  ["My wife's name is Julia", "partner_name", "fact"],
  ["My husband is called Tom", "partner_name", "fact"],
  ["My girlfriend is Anna", "partner_name", "fact"],
  ["My manager is Sarah", "manager_name", "fact"],
  ["I'm married", "relationship_status", "fact"],
  ["I got divorced last year", "relationship_status", "event"],
  ["My daughter's name is Mia", "daughter_name", "fact"],
  ["My dog is called Max", "dog_name", "fact"],
  ["I have a cat named Luna", "cat_name", "fact"],
  ["We renamed our dog Buddy", "dog_name", "fact"],
  ["I have two kids", "child_count", "fact"],
  ["I'm vegetarian", "diet", "preference"],
  ["I'm not vegan anymore", "diet", "preference"],
  ["I eat meat again", "diet", "preference"],
  ["My favourite colour is blue", "favorite_color", "preference"],
  ["Pizza is my favorite food", "favorite_food", "preference"],
  ["My son's favourite food is pizza", "son_favorite_food", "preference"],
  ["I drive a Toyota Corolla", "car", "fact"],
  ["I commute by bike", "commute", "fact"],
  ["These days I go to bed at 10 pm", "bedtime", "fact"],
  ["I'm learning Japanese", "language_learning", "fact"],
  ["My native language is Portuguese", "native_language", "fact"],
];

const CHINESE_SLOTS: Keyed[] = [
  ["我住在北京", "home_city", "fact"],
  ["我搬到深圳了", "home_city", "fact"],
  ["我们上个月搬到杭州了", "home_city", "fact"],
  ["我不住在广州了", "home_city", "fact"],
  ["我妈妈住在广州", "mother_home_city", "fact"],
  ["我老家是湖南的", "hometown", "fact"],
  ["我是四川人", "hometown", "fact"],
  ["我出生在成都", "birthplace", "fact"],
  ["我在腾讯工作", "employer", "fact"],
  ["我从百度辞职了", "employer", "fact"],
  ["我老婆在华为工作", "partner_employer", "fact"],
  ["我是一名老师", "job_title", "fact"],
  ["我现在当医生了", "job_title", "fact"],
  ["我转行做程序员了", "job_title", "fact"],
  ["我在北京大学读书", "school", "fact"],
  ["我女儿在实验小学上学", "daughter_school", "fact"],
  ["我叫王小明", "name", "fact"],
  ["叫我小明就行", "preferred_name", "preference"],
  ["我今年二十八岁", "age", "fact"],
  ["我的生日是三月三号", "birthday", "fact"],
  ["我老婆叫小丽", "partner_name", "fact"],
  ["我的领导是王经理", "manager_name", "fact"],
  ["我单身", "relationship_status", "fact"],
  ["我上个月结婚了", "relationship_status", "event"],
  ["我的猫叫咪咪", "cat_name", "fact"],
  ["我们把猫改名叫豆豆了", "cat_name", "fact"],
  ["我有两个孩子", "child_count", "fact"],
  ["我吃素", "diet", "preference"],
  ["我不再吃素了", "diet", "preference"],
  ["我最喜欢的水果是苹果", "favorite_fruit", "preference"],
  ["我最喜欢吃火锅", "favorite_food", "preference"],
  ["我儿子最喜欢吃火锅", "son_favorite_food", "preference"],
  ["我每天坐地铁上班", "commute", "fact"],
  ["我在学日语", "language_learning", "fact"],
];

/** Things a person has several of: one slot per value, and the "no longer" form fills the same slot. */
const MULTI_VALUED: Keyed[] = [
  ["I'm allergic to peanuts", "allergy_peanut", "fact"],
  ["I'm allergic to cats", "allergy_cat", "fact"],
  ["I'm not allergic to cats anymore", "allergy_cat", "fact"],
  ["I have a pollen allergy", "allergy_pollen", "fact"],
  ["I like jazz", "likes_jazz", "preference"],
  ["I don't like jazz anymore", "likes_jazz", "preference"],
  ["I like coffee in the morning", "likes_coffee_morning", "preference"],
  ["I speak French", "speaks_french", "fact"],
  ["I speak German fluently", "speaks_german", "fact"],
  ["I avoid gluten", "avoid_gluten", "preference"],
  ["I can eat gluten again", "avoid_gluten", "preference"],
  ["我对花生过敏", "allergy_花生", "fact"],
  ["我对猫过敏", "allergy_cat", "fact"],
  ["我现在对猫不过敏了", "allergy_cat", "fact"],
  ["我会说英语", "speaks_英语", "fact"],
  ["我喜欢爵士乐", "likes_爵士乐", "preference"],
  ["我不喜欢爵士乐了", "likes_爵士乐", "preference"],
];

const ENGLISH_DROPPED = [
  "hi there!",
  "Hello :)",
  "good morning",
  "how are you today?",
  "thanks a lot",
  "Thank you so much!",
  "ok cool",
  "lol that's funny",
  "haha",
  "see you later",
  "bye!",
  "that's great",
  "you're welcome",
  "no worries",
  "sure",
  "wow",
  "awesome",
  "I'm so tired right now",
  "hmm let me think",
  "nice weather huh",
  "really?",
  "Can I eat peanuts?",
  "what should I cook for lunch",
  "Do you know a good Thai place",
  "Could you book me a table for two",
  "please summarize this article",
  "tell me a joke",
  "let's talk about something else",
  "I wonder if it will rain",
  "thanks, bye!",
  "Good night!",
  "OK thanks",
  "I love it",
  "you're the best",
  "You are wrong",
  "forget it",
  "that's not what I meant",
  "👍",
  "😂😂",
];

const CHINESE_DROPPED = [
  "你好",
  "您好！",
  "早上好",
  "谢谢",
  "谢谢你！",
  "好的",
  "好的谢谢",
  "嗯嗯",
  "哈哈哈",
  "再见",
  "拜拜~",
  "没问题",
  "不客气",
  "今天好累啊哈哈",
  "我好困",
  "天气不错",
  "我能吃花生吗？",
  "我能吃花生吗",
  "你觉得我该吃什么",
  "今天吃什么好呢",
  "帮我订一家餐厅",
  "请推荐一部电影",
  "给我讲个笑话",
  "你是谁",
  "是不是要下雨了",
  "明白了，谢谢！",
  "这个不对",
  "不是这个意思",
  "我爱你",
];

describe("PatternExtractor: what it drops", () => {
  it("drops questions, greetings, thanks, acknowledgements, feelings of the moment and requests (English)", async () => {
    for (const line of ENGLISH_DROPPED) expect(await extract(line), line).toEqual([]);
  });

  it("drops the same in Chinese", async () => {
    for (const line of CHINESE_DROPPED) expect(await extract(line), line).toEqual([]);
  });

  it("says why it dropped each clause", () => {
    const reasons = readClauses("Hi! Can I eat peanuts? Book me a table for two. 谢谢", DEFAULT_LANGUAGES).map((o) => ("dropped" in o ? o.dropped : "kept"));
    expect(reasons).toEqual(["no-words", "question", "request", "small-talk"]);
  });
});

describe("PatternExtractor: slot keys", () => {
  it("keys the common personal facts in English", async () => {
    for (const [text, key, kind] of ENGLISH_SLOTS) expect(await extract(text), text).toEqual([{ content: text, kind, key, sourceSpan: text }]);
  });

  it("keys the common personal facts in Chinese", async () => {
    for (const [text, key, kind] of CHINESE_SLOTS) expect(await extract(text), text).toEqual([{ content: text, kind, key, sourceSpan: text }]);
  });

  it("keeps one slot per value for things a person has several of; the 'no longer' form fills the same slot", async () => {
    for (const [text, key, kind] of MULTI_VALUED) expect(await extract(text), text).toEqual([{ content: text, kind, key, sourceSpan: text }]);
  });

  it("reads statements about 'the user', as agents write them, like the user's own", async () => {
    const thirdPerson: Array<[string, string]> = [
      ["User is allergic to peanuts", "allergy_peanut"],
      ["User lives in Berlin", "home_city"],
      ["The user moved to Shenzhen", "home_city"],
      ["User no longer lives in Paris", "home_city"],
      ["User's name is Anna", "name"],
      ["User works at Google", "employer"],
      ["User isn't vegan anymore", "diet"],
      ["User has a dog named Rex", "dog_name"],
      ["User was born in 1990", "birth_year"],
      ["用户住在北京", "home_city"],
      ["用户对花生过敏", "allergy_花生"],
    ];
    for (const [text, key] of thirdPerson) expect((await extract(text))[0], text).toMatchObject({ content: text, key });
  });

  it("fills no slot when the words only look like one", async () => {
    const notKeyed = [
      "My girlfriend is pregnant",
      "My mother is Chinese",
      "I work from home",
      "我叫了外卖",
      "I go to the gym on Mondays",
      "I like long walks on the beach at sunset with my old dog",
      "I'm from the marketing team",
      "I live in the moment",
    ];
    for (const text of notKeyed) {
      const facts = await extract(text);
      expect(facts, text).toHaveLength(1);
      expect(facts[0]!.key, text).toBeUndefined();
    }
  });
});

describe("PatternExtractor: statements it keeps as said", () => {
  it("keeps every other statement, of kind preference or event when a cue says so, else fact", async () => {
    const kept: Array<[string, ExtractedFact["kind"]]> = [
      ["My sister loves jazz", "preference"],
      ["I went hiking in the Alps yesterday", "event"],
      ["My order #1234 shipped today", "event"],
      ["I use an iPhone 12", "fact"],
      ["memory 5: I like rice and beans, not fish (5)", "preference"],
      ["Tokyo", "fact"],
      ["我周末喜欢爬山", "preference"],
      ["下个月我要去北京出差", "event"],
      ["私は東京で働いています", "fact"],
    ];
    for (const [text, kind] of kept) expect(await extract(text), text).toEqual([{ content: text, kind, sourceSpan: text }]);
  });

  it("splits sentences and clauses, keeps each fact, drops the small talk around them", async () => {
    const facts = await extract("Hi! I just moved to Shenzhen, and I'm allergic to peanuts. Can I eat satay? Thanks!");
    expect(facts.map((f) => [f.content, f.key])).toEqual([
      ["I just moved to Shenzhen", "home_city"],
      ["I'm allergic to peanuts.", "allergy_peanut"],
    ]);
    expect((await extract("今天好累啊哈哈。对了,我是素食者。我住在北京，我对花生过敏，能吃沙爹吗？")).map((f) => [f.content, f.key])).toEqual([
      ["我是素食者。", "diet"],
      ["我住在北京", "home_city"],
      ["我对花生过敏", "allergy_花生"],
    ]);
    expect((await extract("I'm allergic to peanuts, can I eat satay?")).map((f) => f.content)).toEqual(["I'm allergic to peanuts"]);
    // A part too short to be a clause stays with the rest.
    expect((await extract("My wife and I live in Paris")).map((f) => f.content)).toEqual(["My wife and I live in Paris"]);
  });

  it("removes filler before a fact, keeps time words in it", async () => {
    expect(await extract("By the way, I moved to Berlin")).toMatchObject([{ content: "I moved to Berlin", key: "home_city" }]);
    expect(await extract("Please remember that I'm vegetarian")).toMatchObject([{ content: "I'm vegetarian", key: "diet" }]);
    expect(await extract("对了，我是素食者")).toMatchObject([{ content: "我是素食者", key: "diet" }]);
    expect(await extract("记住，我对花生过敏")).toMatchObject([{ content: "我对花生过敏", key: "allergy_花生" }]);
    expect(await extract("These days I go to bed at 10 pm")).toMatchObject([{ content: "These days I go to bed at 10 pm", key: "bedtime" }]);
  });

  it("reads only the user's messages of a transcript, without injected memory blocks", async () => {
    const facts = await extractor.extract("u", [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "<moomem-context>\n- I live in Beijing\n</moomem-context>\nHi! I moved to Shenzhen. What's good to eat here?" },
      { role: "assistant", content: "You live in Shenzhen now, great! I'm allergic to nothing." },
      { role: "Human", content: "I'm allergic to peanuts" },
    ]);
    expect(facts.map((f) => [f.content, f.key])).toEqual([
      ["I moved to Shenzhen.", "home_city"],
      ["I'm allergic to peanuts", "allergy_peanut"],
    ]);
    expect(await extractor.extract("u", "<moomem-context>\n- I live in Beijing\n</moomem-context>")).toEqual([]);
  });

  it("leaves out fenced code the user pasted", async () => {
    const facts = await extract("I live in Paris.\n```js\nconst x = 1;\nconsole.log(x);\n```\nwhy does this fail? I'm a developer.\n~~~\nrm -rf /tmp/x\n");
    expect(facts.map((f) => [f.content, f.key])).toEqual([
      ["I live in Paris.", "home_city"],
      ["I'm a developer.", "job_title"],
    ]);
  });

  it("never throws, keeps the user's own words, and makes well-formed keys (property)", async () => {
    const pieces = [
      "I live in Paris",
      "I'm allergic to",
      "cats",
      "thanks",
      "?",
      "!",
      ".",
      ",",
      " and ",
      "my wife",
      "我住在",
      "北京",
      "我对",
      "过敏",
      "吗",
      "，",
      "。",
      "haha",
      "哈哈",
      "call me",
      "Bob",
      "I like",
      "not",
      "#12",
      "<moomem-context>",
      "</moomem-context>",
      "\n",
      "’",
      "Dr.",
    ];
    const text = fc.oneof(
      fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((p) => p.join(" ")),
      fc.string({ maxLength: 40 }),
    );
    const squash = (s: string): string => s.replace(/\s+/gu, "");
    await fc.assert(
      fc.asyncProperty(text, async (input) => {
        const facts = await extract(input);
        for (const fact of facts) {
          expect(fact.content.trim().length).toBeGreaterThan(0);
          // The user's words: a part of the input once moomem's own memory blocks are taken out.
          expect(squash(stripMemoryContext(input))).toContain(squash(fact.content));
          if (fact.key !== undefined) expect(fact.key).toMatch(/^[\p{L}\p{N}]+(?:_[\p{L}\p{N}]+)*$/u);
          expect(["fact", "preference", "event"]).toContain(fact.kind);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("reads long and repetitive input in one pass (no pattern backtracks on it)", async () => {
    const long = [
      "哈".repeat(8000) + "x",
      "haha ".repeat(1600) + "x",
      "I like " + "very ".repeat(1500) + "much",
      "I live in " + "a ".repeat(4000),
      ", and I".repeat(1000),
      "我对" + "花".repeat(8000) + "过敏",
      "ok ok ok ok ".repeat(700) + "?",
    ];
    for (const text of long) expect(Array.isArray(await extract(text))).toBe(true);
  });
});

describe("PatternExtractor: languages are tables", () => {
  it("reads a language added as a table, with no change to the engine", async () => {
    const german: LanguageTable = {
      ...ENGLISH,
      language: "de",
      script: /[a-zäöüß]+/giu,
      question: [/\?\s*$/u],
      smallTalk: { phrase: /(?:hallo|danke|tschüss)(?![\p{L}])/iuy, glue: /[\s,.!]+/uy },
      request: [/^bitte\b/iu],
      slots: [{ pattern: /^ich\s+wohne\s+in\s+(?<value>.+)/iu, key: "home_city", kind: "fact" }],
    };
    const facts = await new PatternExtractor({ languages: [german] }).extract("u", "Hallo! Ich wohne in Berlin. Wo ist der Bahnhof?");
    expect(facts).toEqual([{ content: "Ich wohne in Berlin.", kind: "fact", key: "home_city", sourceSpan: "Ich wohne in Berlin." }]);
  });

  it("rejects an empty list of languages", () => {
    expect(() => new PatternExtractor({ languages: [] })).toThrow(/languages/);
  });
});
