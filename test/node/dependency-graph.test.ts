// The layer check and the picture of scripts/dependency-graph.ts, on small source trees made for the test.

import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  checkLayers,
  readSourceGraph,
  renderSection,
  replaceSection,
  unitOf,
  START_MARKER,
  END_MARKER,
  type SourceGraph,
} from "../../scripts/dependency-graph.ts";
import type { Layer } from "../../scripts/layers.ts";

const LAYERS: Layer[] = [
  { name: "top", units: ["cli/"] },
  { name: "middle", units: ["store/", "context/"] },
  { name: "backends", units: ["persistence/file/"] },
  { name: "lower", units: ["persistence/"] },
  { name: "errors", units: ["errors.ts"] },
  { name: "base", units: ["types.ts"] },
];

let dir: string;

/** Writes a source tree: path under src/ → file text. */
function tree(files: Record<string, string>): string {
  const src = mkdtempSync(join(dir, "src-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
  return src;
}

/** A tree that keeps the layers, plus whatever `extra` adds or replaces. */
function graphOf(extra: Record<string, string> = {}): SourceGraph {
  return readSourceGraph(
    tree({
      "types.ts": "export type Id = string;\n",
      "errors.ts": 'import type { Id } from "./types.ts";\nexport class E extends Error { id?: Id }\n',
      "persistence/backend.ts": 'import { E } from "../errors.ts";\nexport const backend = E;\n',
      "persistence/file/file-backend.ts":
        'import { readFileSync } from "node:fs";\nimport { backend } from "../backend.ts";\nexport const file = [backend, readFileSync];\n',
      "store/store.ts": 'import { file } from "../persistence/file/file-backend.ts";\nexport const store = file;\n',
      "store/store.test.ts": 'import { cli } from "../cli/main.ts";\n', // tests are not part of the graph
      "context/format.ts": 'export type { Id } from "../types.ts";\nexport const format = 1;\n',
      "cli/main.ts": 'import { store } from "../store/store.ts";\nexport const cli = async () => [store, await import("../context/format.ts")];\n',
      ...extra,
    }),
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "moomem-deps-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("reading imports", () => {
  it("finds static, type-only, re-exported and lazy imports, and the packages each file uses; tests are left out", () => {
    const graph = graphOf({
      "store/types-only.ts": 'type T = typeof import("../errors.ts");\nimport type { Id } from "../types.ts";\nexport type U = [T, Id];\n',
    });
    expect(graph.files).not.toContain("store/store.test.ts");
    const edges = graph.imports.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " type" : ""}${e.dynamic ? " lazy" : ""}`).sort();
    expect(edges).toEqual([
      "cli/main.ts → context/format.ts lazy",
      "cli/main.ts → store/store.ts",
      "context/format.ts → types.ts type",
      "errors.ts → types.ts type",
      "persistence/backend.ts → errors.ts",
      "persistence/file/file-backend.ts → persistence/backend.ts",
      "store/store.ts → persistence/file/file-backend.ts",
      "store/types-only.ts → errors.ts type",
      "store/types-only.ts → types.ts type",
    ]);
    expect([...graph.packages.get("persistence/file/file-backend.ts")!]).toEqual(["node:fs"]);
  });

  it("a subfolder is its own unit only when the layers name it", () => {
    expect(unitOf("persistence/file/file-backend.ts", LAYERS)).toBe("persistence/file/");
    expect(unitOf("persistence/file/deeper/x.ts", LAYERS)).toBe("persistence/file/");
    expect(unitOf("persistence/backend.ts", LAYERS)).toBe("persistence/");
    expect(unitOf("store/sub/x.ts", LAYERS)).toBe("store/");
    expect(unitOf("types.ts", LAYERS)).toBe("types.ts");
    expect(unitOf("fresh/x.ts", LAYERS)).toBe("fresh/");
  });
});

describe("the layer check", () => {
  it("accepts a tree whose imports all point down", () => {
    expect(checkLayers(graphOf(), LAYERS)).toEqual([]);
  });

  it("refuses an import up a layer, naming both files and both layers", () => {
    const problems = checkLayers(graphOf({ "persistence/backend.ts": 'import { store } from "../store/store.ts";\nexport const backend = store;\n' }), LAYERS);
    expect(problems).toEqual([
      'src/persistence/backend.ts imports src/store/store.ts: persistence/ (layer 4, "lower") may import only its own files and layers below it, and store/ is above it (layer 2, "middle")',
    ]);
  });

  it("refuses an import beside it, into another unit of its own layer, types included", () => {
    const problems = checkLayers(
      graphOf({ "context/format.ts": 'import type { store } from "../store/store.ts";\nexport const format: typeof store = [];\n' }),
      LAYERS,
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("src/context/format.ts imports src/store/store.ts");
    expect(problems[0]).toContain('beside it in layer 2 ("middle")');
  });

  it("holds a named subfolder to its own layer: it imports its parent folder below it, never a layer above", () => {
    const problems = checkLayers(
      graphOf({
        "persistence/file/file-backend.ts": 'import { store } from "../../store/store.ts";\nexport const file = store;\n',
        "store/store.ts": "export const store = 1;\n",
      }),
      LAYERS,
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('persistence/file/ (layer 3, "backends")');
  });

  it("names a folder or root file that is in no layer, and a layer entry with nothing behind it", () => {
    const graph = graphOf({ "state/entries.ts": "export const entries = [];\n", "clock.ts": "export const now = 0;\n" });
    const problems = checkLayers(graph, [...LAYERS, { name: "gone", units: ["old-folder/"] }]);
    expect(problems).toEqual([
      'src/clock.ts is in no layer: add "clock.ts" to the layer it belongs to in scripts/layers.ts (one line)',
      'src/state/ is in no layer: add "state/" to the layer it belongs to in scripts/layers.ts (one line)',
      "scripts/layers.ts names old-folder/, but src/old-folder/ holds no source file: rename or remove it there",
    ]);
  });

  it("names a unit listed twice or misspelt, and an import that leads to no source file", () => {
    const problems = checkLayers(graphOf({ "store/store.ts": 'import { x } from "./missing.ts";\nexport const store = x;\n' }), [
      ...LAYERS,
      { name: "again", units: ["store/", "errors"] },
    ]);
    expect(problems).toContain("scripts/layers.ts names store/ 2 times; a unit belongs to one layer");
    expect(problems.some((p) => p.includes('names "errors": write a folder as "name/"'))).toBe(true);
    expect(problems).toContain('src/store/store.ts imports "./missing.ts", which is no .ts file under src/');
  });
});

describe("the generated picture", () => {
  it("is the same for the same tree, lists every unit, and changes when an import changes", () => {
    const graph = graphOf();
    const section = renderSection(graph, LAYERS, ["store/"]);
    expect(renderSection(graph, LAYERS, ["store/"])).toBe(section);
    expect(section.startsWith(START_MARKER)).toBe(true);
    expect(section.endsWith(END_MARKER)).toBe(true);
    for (const unit of LAYERS.flatMap((l) => l.units)) expect(section).toContain(`| \`${unit}\` |`);
    expect(section).toContain("| 1 top | `cli/` | `context/` (lazy), `store/` | — |");
    expect(section).toContain("`node:fs`");
    // Imports into the bottom layer end at its box; type-only ones are dotted.
    expect(section).toContain("u_errors_ts -.-> L6");
    expect(section).toContain("u_context_ -.-> L6");
    expect(section).toContain("u_persistence_ --> u_errors_ts");
    const changed = renderSection(graphOf({ "cli/main.ts": 'import { store } from "../store/store.ts";\nexport const cli = store;\n' }), LAYERS, ["store/"]);
    expect(changed).not.toBe(section);
  });

  it("replaces only the text between the markers, and refuses a document without them", () => {
    const doc = `# Title\n\nbefore\n${START_MARKER}\nold picture\n${END_MARKER}\nafter\n`;
    expect(replaceSection(doc, `${START_MARKER}\nnew\n${END_MARKER}`)).toBe(`# Title\n\nbefore\n${START_MARKER}\nnew\n${END_MARKER}\nafter\n`);
    expect(() => replaceSection("# Title\n", "x")).toThrow("no generated part");
  });
});
