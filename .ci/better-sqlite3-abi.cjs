// Preloaded (NODE_OPTIONS=--require) by .ci/other-nodes.sh when the tests run on a Node other
// than the one node_modules was installed with. better-sqlite3 is a native module built for
// that Node's ABI; this points its load at a copy built for the running Node
// ($TOOLNEXUS_BETTER_SQLITE3), so node_modules stays untouched and each Node has its own. Only
// Nodes below 24 get it: from 24, @toolnexus/store-sqlite runs on node:sqlite instead.
"use strict";
const path = require("node:path");

// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by .ci/other-nodes.sh, whose turbo runs have the cache off
const binary = process.env.TOOLNEXUS_BETTER_SQLITE3;
if (binary) {
  const dlopen = process.dlopen;
  process.dlopen = function dlopenRedirected(module, filename, ...rest) {
    const target = path.basename(String(filename)) === "better_sqlite3.node" ? binary : filename;
    return dlopen.call(this, module, target, ...rest);
  };
}
