// readProviderSettings: the MOOMEM_LLM_* / MOOMEM_EMBED_* variables the CLI reads, and what its errors tell a user.

import { describe, it, expect } from "vitest";
import { readProviderSettings } from "../../src/openai.ts";
import { MoomemError } from "../../src/errors.ts";

function failure(env: Record<string, string>, want: { llm?: boolean; embed?: boolean }): MoomemError {
  try {
    readProviderSettings(env, want);
  } catch (error) {
    expect(error).toBeInstanceOf(MoomemError);
    return error as MoomemError;
  }
  throw new Error("expected readProviderSettings to throw");
}

describe("readProviderSettings", () => {
  it("reads complete settings; a key may be left out for a server on this machine", () => {
    const env = {
      MOOMEM_LLM_BASE_URL: "http://localhost:11434/v1",
      MOOMEM_LLM_MODEL: "llama3.1",
      MOOMEM_EMBED_BASE_URL: "https://api.example/v1",
      MOOMEM_EMBED_API_KEY: "sk-x",
      MOOMEM_EMBED_MODEL: "e",
      MOOMEM_EMBED_DIM: "1024",
    };
    expect(readProviderSettings(env, { llm: true, embed: true })).toEqual({
      llm: { baseURL: "http://localhost:11434/v1", apiKey: undefined, model: "llama3.1" },
      embed: { baseURL: "https://api.example/v1", apiKey: "sk-x", model: "e", dim: 1024, batchSize: undefined },
    });
  });

  it("names every variable to set, with an example, and no file the package does not ship", () => {
    const llm = failure({}, { llm: true });
    expect(llm.code).toBe("INVALID_ARGUMENT");
    expect(llm.message).not.toContain(".env.example");
    for (const name of ["MOOMEM_LLM_BASE_URL", "MOOMEM_LLM_API_KEY", "MOOMEM_LLM_MODEL"]) expect(llm.message).toContain(name);
    expect(llm.message).toMatch(/MOOMEM_LLM_BASE_URL \([^)]*e\.g\. https:\/\/api\.deepseek\.com\/v1/);
    expect(llm.message).not.toContain("MOOMEM_EMBED");

    const embed = failure({ MOOMEM_EMBED_BASE_URL: "https://api.example/v1" }, { embed: true });
    expect(embed.message).not.toContain(".env.example");
    expect(embed.message).toContain("MOOMEM_EMBED_API_KEY is not set");
    for (const name of ["MOOMEM_EMBED_BASE_URL", "MOOMEM_EMBED_API_KEY", "MOOMEM_EMBED_MODEL", "MOOMEM_EMBED_DIM", "MOOMEM_EMBED_BATCH_SIZE"]) {
      expect(embed.message).toContain(name);
    }
    expect(embed.message).not.toContain("MOOMEM_LLM");
  });
});
