#!/usr/bin/env node
// Runs the MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, pinned)
// against src/fixtures/conformance-client.ts, a small client built on this package, and prints
// which pass. The suite needs Node >= 22 (it uses fs.globSync): give its binary in NODE22, or
// this script looks in the CI cache that .ci/other-nodes.sh fills. Offline: every server it
// starts listens on localhost. Not part of `pnpm test` (it takes a few minutes); see README.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { findNode22 } from "../../../.ci/find-node22.mjs";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const node22 = findNode22();
const cli = join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
// The fixture is bundled to JavaScript once (this package's source with it, its dependencies left
// as imports): every scenario starts it, and plain Node starts in a third of the CPU that
// `node --import tsx` takes to compile it again each time.
const bundle = join(here, "node_modules", ".cache", "toolnexus-conformance", "client.mjs");
await build({
  entryPoints: [join(here, "src", "fixtures", "conformance-client.ts")],
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: bundle,
  logLevel: "warning",
});
const command = `${process.execPath} ${bundle}`;
// The authorization scenarios run at the newest revision each applies to (metadata-default at
// 2025-11-25 too, the initialize-era path); and every authorization extension: client
// credentials (a secret or private_key_jwt), DPoP, workload identity and enterprise-managed
// authorization (both the JWT bearer grant; the fixture exchanges the ID token for the latter).
const AUTH_2026 = [
  "metadata-default",
  "metadata-var1",
  "metadata-var2",
  "metadata-var3",
  "basic-cimd",
  "scope-from-www-authenticate",
  "scope-from-scopes-supported",
  "scope-omitted-when-undefined",
  "scope-step-up",
  "scope-retry-limit",
  "token-endpoint-auth-basic",
  "token-endpoint-auth-post",
  "token-endpoint-auth-none",
  "pre-registration",
  "resource-mismatch",
  "offline-access-scope",
  "offline-access-not-supported",
  "authorization-server-migration",
  "iss-supported",
  "iss-not-advertised",
  "iss-supported-missing",
  "iss-wrong-issuer",
  "iss-unexpected",
  "iss-normalized",
  "metadata-issuer-mismatch",
];
const auth = [
  ...AUTH_2026.map((name) => [`auth/${name}`, "2026-07-28"]),
  ["auth/metadata-default", "2025-11-25"],
  ["auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26"],
  ["auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26"],
  ["auth/client-credentials-basic", undefined],
  ["auth/client-credentials-jwt", undefined],
  ["auth/dpop", undefined],
  ["auth/dpop-nonce", undefined],
  ["auth/wif-jwt-bearer", undefined],
  ["auth/enterprise-managed-authorization", undefined],
];
const scenarios = [
  ["initialize", "2025-11-25"],
  ["tools_call", "2025-11-25"],
  ["tools_call", "2026-07-28"],
  ["elicitation-sep1034-client-defaults", "2025-11-25"],
  ["sse-retry", "2025-11-25"],
  ["request-metadata", "2026-07-28"],
  ["sep-2322-client-request-state", "2026-07-28"],
  ["http-standard-headers", "2026-07-28"],
  ["http-custom-headers", "2026-07-28"],
  ["http-invalid-tool-headers", "2026-07-28"],
  ["json-schema-ref-no-deref", "2026-07-28"],
  ["json-schema-2020-12-preservation", "2025-11-25"],
  ["json-schema-2020-12-preservation", "2026-07-28"],
  ...auth,
];
const only = process.argv.slice(2);
const chosen = scenarios.filter(([scenario]) => only.length === 0 || only.includes(scenario));

/** One scenario in a process of its own; each starts its own servers on free ports. */
function runScenario([scenario, version]) {
  return new Promise((resolve) => {
    const child = spawn(
      node22,
      [
        cli,
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        ...(version === undefined ? [] : ["--spec-version", version]),
      ],
      { cwd: here, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ scenario, version, ok: code === 0, output });
    });
  });
}

// Scenarios are independent and mostly wait on their servers: a few at once (CONFORMANCE_JOBS,
// default 3) take a third of the time of one after the other; results print in list order.
const jobs = Math.max(1, Number(process.env.CONFORMANCE_JOBS) || 3);
const results = new Array(chosen.length);
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(jobs, chosen.length) }, async () => {
    while (next < chosen.length) {
      const index = next++;
      results[index] = await runScenario(chosen[index]);
    }
  }),
);
let passed = 0;
let failed = 0;
for (const { scenario, version, ok, output } of results) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "PASS" : "FAIL"} ${scenario} (${version ?? "extension"})`);
  if (!ok || process.env.VERBOSE) console.log(output.trim().split("\n").slice(-25).join("\n"));
}
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
