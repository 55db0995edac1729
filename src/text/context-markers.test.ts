import { describe, it, expect } from "vitest";
import { MEMORY_CONTEXT_CLOSE, MEMORY_CONTEXT_OPEN, stripMemoryContext } from "./context-markers.ts";

const block = (body: string): string => `${MEMORY_CONTEXT_OPEN}\n${body}\n${MEMORY_CONTEXT_CLOSE}`;

describe("stripMemoryContext", () => {
  it("returns text without markers unchanged", () => {
    const text = "  I live in Beijing\n\n\n ";
    expect(stripMemoryContext(text)).toBe(text);
  });

  it("removes a block and the blank lines it leaves", () => {
    const text = `${block("- User lives in Beijing\n- User is vegetarian")}\n\nI moved to Shenzhen`;
    expect(stripMemoryContext(text)).toBe("I moved to Shenzhen");
  });

  it("removes every block and keeps the text between them", () => {
    const text = `before\n${block("a")}\nmiddle\n${block("b")}\nafter`;
    expect(stripMemoryContext(text)).toBe("before\nmiddle\nafter");
  });

  it("drops everything after an opening marker that is never closed", () => {
    expect(stripMemoryContext(`keep this\n${MEMORY_CONTEXT_OPEN}\n- User lives in Beijing`)).toBe("keep this");
  });

  it("removes a stray closing marker alone", () => {
    expect(stripMemoryContext(`a ${MEMORY_CONTEXT_CLOSE} b`)).toBe("a  b");
  });

  it("leaves nothing when the text is only a block", () => {
    expect(stripMemoryContext(block("- User likes tea"))).toBe("");
  });
});
