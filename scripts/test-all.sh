#!/usr/bin/env bash
# What `npm test` and CI run: build, type-check, lint, the suite on Node, Chromium, Bun and Deno, then the package checks.
#
# Every step runs even after a failure (so one run shows everything that is broken); the script exits 1
# if any step failed. A timing table is printed at the end.
#   FAIL_FAST=1          stop at the first failing step
#   CHROMIUM_PATH=...    the Chromium or Chrome binary for the browser suite (default: the usual places,
#                        see scripts/find-chromium.mjs)

set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
# Colour codes make CI logs hard to read; locally the runners decide by TTY.
if [[ "${CI:-}" == true ]]; then export NO_COLOR=1; fi

# Suites under test/node/ not repeated on Bun and Deno, with the reason. Everything else under test/node/
# runs on all three server runtimes, so file persistence is checked where users run it. (All of test/node/
# passed on Bun 1.4.5 and Deno 2.9.6 when this list was made; these only add time there.)
# Paths are relative to the repository root.
NODE_ONLY_TESTS=(
  test/node/cli.test.ts          # spawns `node dist/cli/main.js` whatever runs the test: Bun/Deno would re-test Node
  test/node/cli-truncation.test.ts  # the same
  test/node/cli-import.test.ts      # runs the built bin with node: same
  test/node/cli-add-lines.test.ts   # runs the built bin with node: same
  test/node/examples.test.ts     # spawns tsx (Node) for every example: same
  test/node/openai/demo.test.ts  # spawns tsx (Node) for the demo: same
  test/node/openai/cli-llm.test.ts  # spawns the built bin with node: same
  test/node/optional-peers.test.ts  # runs the built package in node child processes: same
  test/node/inspector-browser.test.ts  # spawns `node dist/cli/main.js ui` and drives it with Chromium: same
  test/node/inspector-write.test.ts    # same
  test/node/inspector-http.test.ts     # spawns `node dist/cli/main.js ui`: same
  test/node/postgres/package-entry.test.ts  # runs the built moomem/postgres in node child processes: same
  test/node/cli-postgres.test.ts    # spawns the built bin with node on a throwaway PostgreSQL: same
  test/node/chromium-missing.test.ts  # runs node and vitest (the chromium project) in child processes: same
  test/node/package-contents.test.ts  # asks npm what the tarball holds: nothing runtime-specific
  test/node/openai/cli-embedder.test.ts  # spawns the built bin with node
  test/node/openai/cli-import-interrupt.test.ts  # spawns the built bin with node
  test/node/readme.test.ts       # npm pack + install, tsc and tsx in child processes: nothing runtime-specific
)

declare -a names=() times=() results=()
failed=0

now_ms() { date +%s%3N; }

summary() {
  printf '\n==== summary ====\n'
  local i
  for i in "${!names[@]}"; do
    printf '%-34s %8s ms  %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
  done
}

# run_step <name> <command...>: one command per step, so its exit status is the step's result.
run_step() {
  local name="$1"
  shift
  printf '\n==== %s ====\n$ %s\n' "$name" "$*"
  local start status=0
  start="$(now_ms)"
  "$@" || status=$?
  names+=("$name")
  times+=("$(($(now_ms) - start))")
  if ((status == 0)); then
    results+=("ok")
  else
    results+=("FAILED (exit $status)")
    failed=1
    printf '\n!!!! %s failed with exit %s\n' "$name" "$status"
    if [[ "${FAIL_FAST:-0}" == 1 ]]; then
      summary
      exit 1
    fi
  fi
}

total_start="$(now_ms)"

# The browser suite needs a system Chromium (never downloaded): without one, say in one line what is
# missing and how to get it, and fail the step (CI installs it in .ci/run, so it never skips this suite).
chromium_suite() {
  local found
  found="$(node scripts/find-chromium.mjs)" || return 1
  CHROMIUM_PATH="$found" vitest run --project chromium
}

# Shared suite = every *.test.ts under src/ and test/ except test/node/ (which needs a file system and processes).
# Deno gets explicit file lists: its --ignore was seen to stop applying when several roots are given.
is_node_only() {
  local f
  for f in "${NODE_ONLY_TESTS[@]}"; do [[ "$1" == "$f" ]] && return 0; done
  return 1
}
mapfile -t shared_tests < <(find src test -name '*.test.ts' -not -path 'test/node/*' | sort)
node_dir_tests=()
while IFS= read -r f; do
  is_node_only "$f" || node_dir_tests+=("$f")
done < <(find test/node -name '*.test.ts' | sort)

deno_shared=(deno test --quiet --no-lock --allow-env --allow-read --config deno.test.json
  --preload test/shims/idb-preload.ts "${shared_tests[@]}")
# -A: these suites write files and spawn processes (the file lock also reads /proc, which Deno gates behind -A).
deno_node=(deno test --quiet --no-lock -A --config deno.test.json --preload test/shims/idb-preload.ts "${node_dir_tests[@]}")
# The same shared list as Deno and vitest (plain `bun test` finds the same files through bunfig.toml).
# bun test's default per-test timeout is 5 s: give it the suite's hang detector (vitest.config.ts).
BUN_TIMEOUT_MS=300000
bun_shared=(bun test --timeout "$BUN_TIMEOUT_MS")
for f in "${shared_tests[@]}"; do bun_shared+=("./$f"); done
# bunfig.toml ignores test/node/; a path-ignore flag on the command line replaces that list.
bun_node=(bun test --timeout "$BUN_TIMEOUT_MS" --path-ignore-patterns='dist/**' --path-ignore-patterns='node_modules/**')
for f in "${node_dir_tests[@]}"; do bun_node+=("./$f"); done

# Three programs: the runtime-neutral core (no DOM, no Node types), the Node-only and the browser-only code.
# npm run build empties dist/ first, so no file of an older build (a stale .map, a removed module) ships.
run_step "build (tsc: core, node, browser)" npm run --silent build
run_step "typecheck (src, tests, tools)" tsc -p tsconfig.check.json
run_step "lint (eslint)" eslint .
run_step "format (prettier --check)" prettier --check --log-level warn .
# Imports point down the layers of scripts/layers.ts, and docs/architecture.md's picture of them is current (`npm run deps`).
run_step "layers + dependency picture" tsx scripts/dependency-graph.ts --check
run_step "node: vitest" vitest run --project node
run_step "chromium: vitest browser mode" chromium_suite
run_step "bun: shared suite" "${bun_shared[@]}"
run_step "bun: test/node (files)" "${bun_node[@]}"
run_step "deno: shared suite" "${deno_shared[@]}"
run_step "deno: test/node (files)" "${deno_node[@]}"
run_step "package: publint --strict" publint --strict
# attw packs the package; without scripts, so npm's prepack does not build dist/ a second time.
run_step "package: attw (esm-only)" env npm_config_ignore_scripts=true attw --pack . --profile esm-only

summary
printf '%-34s %8s ms\n' "total" "$(($(now_ms) - total_start))"
if ((failed)); then
  printf '\nSOME STEPS FAILED\n'
  exit 1
fi
printf '\nALL STEPS PASSED\n'
