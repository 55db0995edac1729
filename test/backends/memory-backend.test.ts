// The backend conformance suite on MemoryBackend (reopening = loading the same instance again).

import { MemoryBackend, UserLoadingMemoryBackend } from "../../src/persistence/memory/memory-backend.ts";
import { testBackend } from "../backend-conformance.ts";

testBackend(
  "MemoryBackend",
  () => new MemoryBackend(),
  (previous) => previous,
);

testBackend(
  "UserLoadingMemoryBackend",
  () => new UserLoadingMemoryBackend(),
  (previous) => previous,
);
