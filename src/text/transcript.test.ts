// Tests of transcript reading: role names from other chat formats, the user's words, and why a transcript holds nothing.

import { describe, it, expect } from "vitest";
import { canonicalRole, isUserRole, nothingFromUser, userText } from "./transcript.ts";

describe("transcripts", () => {
  it("maps role names of other formats and any case to the canonical ones", () => {
    expect(["user", "User", " USER ", "human", "Human"].map(canonicalRole)).toEqual(["user", "user", "user", "user", "user"]);
    expect(["assistant", "Assistant", "ai", "AI", "model", "bot"].map(canonicalRole)).toEqual(Array(6).fill("assistant"));
    expect(["system", "Tool", "developer"].map(canonicalRole)).toEqual(["system", "tool", "developer"]);
    expect(isUserRole("Human")).toBe(true);
    expect(isUserRole("assistant")).toBe(false);
  });

  it("keeps the user's messages, whatever the role's spelling", () => {
    const text = userText([
      { role: "User", content: "I live in Paris" },
      { role: "assistant", content: "Nice!" },
      { role: "human", content: "I'm vegan" },
      { role: "system", content: "be brief" },
    ]);
    expect(text).toBe("I live in Paris\nI'm vegan");
  });

  it("says why a transcript holds nothing from the user", () => {
    expect(nothingFromUser([{ role: "user", content: "hi" }])).toBeNull();
    expect(nothingFromUser([{ role: "Human", content: "hi" }])).toBeNull();
    const none = nothingFromUser([
      { role: "assistant", content: "How can I help?" },
      { role: "system", content: "You are kind." },
      { role: "user", content: "   " },
    ]);
    expect(none).toMatch(/no message of the transcript is from the user \(roles: assistant, system\)/);
    expect(nothingFromUser([{ role: "user", content: "<moomem-context>\n- x\n</moomem-context>" }])).toMatch(/only <moomem-context> blocks/);
  });
});
