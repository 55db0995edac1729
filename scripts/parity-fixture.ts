// Writes test/fixtures/parity-expected.json from a Node run of the parity scenario: `npx tsx scripts/parity-fixture.ts`.
//
// Regenerate only when a deliberate change alters recall results; the diff of the JSON shows what moved.
import { writeFileSync } from "node:fs";
import { runParityScenario } from "../test/parity-scenario.ts";

const target = new URL("../test/fixtures/parity-expected.json", import.meta.url);
const result = await runParityScenario();
writeFileSync(target, JSON.stringify(result, null, 2) + "\n");
console.log(`wrote ${target.pathname}: ${result.recalls.length} recalls, ${result.adds.length} adds`);
