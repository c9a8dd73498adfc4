#!/usr/bin/env bash
# `pnpm test:long`: the suites too long for the README's test command, run after it (they reuse
# its build). In order:
#   1. every `*.long.test.ts` (turbo task `test:long`): the stores' durability under SIGKILL and
#      database restarts (store-sqlite, store-postgres), the demo in a real browser and its
#      durable story across processes, the file tools against a symlink-swapping racer (builtins);
#   2. every package's quick suite again on Node 22 and 24 (.ci/other-nodes.sh: ~4 min cold,
#      under 3 warm);
#   3. the official MCP conformance suite's client scenarios against @toolnexus/mcp, the OAuth
#      ones included (on the Node 22 that step 2 caches; offline, ~3 min), then its server
#      scenarios against @toolnexus/mcp-server (failures checked against
#      packages/mcp-server/scripts/conformance-baseline.yml; ~1 min).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
step() { echo "::: long: $1 ($(($(date +%s) - start))s)"; }

node .ci/tasks.mjs test:long
step "long test files passed"

bash .ci/other-nodes.sh
step "tests passed on node 22 and 24"

node packages/mcp/scripts/conformance.mjs
step "mcp conformance passed"

node packages/mcp-server/scripts/conformance.mjs
step "mcp-server conformance passed"
