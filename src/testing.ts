// The `moomem/testing` entry: the conformance suite every PersistenceBackend must pass, for a backend's own tests.

export { testBackend, makeEntry, type TestRunner, type Matchers, type BackendTestOptions, type BackendTestContext } from "./testing/backend-conformance.ts";
