// The layers of src/, top to bottom: the rule list scripts/dependency-graph.ts checks every import against.
//
// A module may import from its own unit and from any layer below its own, never from a layer above it
// or from another unit of its own layer. A unit is a folder of src/ (written "store/") or a file at the
// root of src/ ("index.ts"). A subfolder belongs to the unit of its parent folder unless it is named
// here itself ("persistence/postgres/" would make the PostgreSQL backend a unit of its own).
//
// Adding a folder or a root file is one line: put its name into the layer it belongs to, or add a
// layer line where it sits. `npm test` fails, naming it, while a folder or root file of src/ is in no
// layer, while a name here has no file behind it, and while an import points up or sideways.

export interface Layer {
  /** What the layer is, as the generated picture in docs/architecture.md titles it. */
  name: string;
  /** Folders ("store/") and root files ("index.ts") of src/ in this layer. */
  units: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  { name: "the moomem command", units: ["cli/"] },
  { name: "entries for integrations", units: ["mcp.ts", "ai-sdk.ts", "openai.ts", "postgres.ts", "testing.ts"] },
  { name: "servers over a store", units: ["mcp/", "inspector/"] },
  // The faces build on the public surface: they import the entries below them, never the rooms behind MemoryStore.
  { name: "agent tools and providers", units: ["integrations/", "adapters/"] },
  { name: "runtime entries", units: ["node.ts", "browser.ts"] },
  { name: "universal entry", units: ["index.ts"] },
  { name: "prompt blocks", units: ["context/"] },
  { name: "the store", units: ["store/"] },
  { name: "the work of each call", units: ["ingest/", "recall/", "transfer/"] },
  { name: "entries in memory", units: ["state/"] },
  { name: "search", units: ["fusion/", "indexes/"] },
  { name: "backend conformance suite", units: ["testing/"] },
  { name: "storage", units: ["persistence/"] },
  // Below persistence/ because persistence/base64.ts checks vectors with embedding/vector-math.ts.
  { name: "embedding", units: ["embedding/"] },
  { name: "checks", units: ["validation/"] },
  { name: "text and time", units: ["text/", "clock.ts"] },
  { name: "shared shapes", units: ["types.ts", "errors.ts", "describe-value.ts"] },
];

/** Folders drawn file by file in docs/architecture.md, besides the folder-level picture. */
export const FILE_LEVEL: readonly string[] = ["store/"];
