// The backend conformance suite on FileBackend, on real files in a temp folder.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { FileBackend } from "../../src/persistence/file/file-backend.ts";
import { testBackend } from "../backend-conformance.ts";

const root = mkdtempSync(join(tmpdir(), "moomem-conformance-"));
let counter = 0;

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

for (const sync of ["always", "interval", "none"] as const) {
  testBackend(
    `FileBackend (sync: ${sync})`,
    () => new FileBackend(join(root, `store-${sync}-${++counter}`), { sync }),
    (previous) => new FileBackend(previous.location, { sync }),
    { persistent: true },
  );
}
