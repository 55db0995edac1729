// Deno has no IndexedDB: give the shared suite fake-indexeddb, as Node and Bun get it.
import "fake-indexeddb/auto";
