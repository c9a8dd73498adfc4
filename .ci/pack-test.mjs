#!/usr/bin/env node
// Pack test: proves that a user who installs the published packages from npm gets working
// packages. Every public workspace package is packed with pnpm (as `changeset publish` would),
// the tarballs are linted (publint, are-the-types-wrong) and installed with npm into a fresh
// project under the OS temp dir, and each package README's first ```ts example is run there as
// ESM and as CommonJS and typechecked with tsc (strict, nodenext). Examples that talk to a
// provider run against a fake HTTP server on 127.0.0.1. A throwaway clone checks that
// `changeset version` turns the pending changesets into versions and CHANGELOGs.
//
//   node .ci/pack-test.mjs [--keep] [--reuse-native] [--skip-changesets]
//
//   --keep            keep the temp directory (printed) for inspection
//   --reuse-native    copy native builds (better-sqlite3) from the workspace instead of
//                     compiling them in the temp project; for quick local iterations only
//   --skip-changesets skip the `changeset version` check
//
// Exits non-zero when anything fails; every failure names the package and the step.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));
for (const arg of args) {
  if (!["--keep", "--reuse-native", "--skip-changesets"].includes(arg)) {
    console.error(`pack-test: unknown option ${arg}`);
    process.exit(2);
  }
}
const KEEP = args.has("--keep");
const REUSE_NATIVE = args.has("--reuse-native");
const SKIP_CHANGESETS = args.has("--skip-changesets");

/** Packages whose README example must reach the fake server, and the API it speaks. */
const PROVIDER_APIS = { "@toolnexus/openai": "openai", "@toolnexus/anthropic": "anthropic" };
/** The fake model's answer, for every request. */
const FAKE_REPLY = "Hello from the pack test's fake model.";
const EXAMPLE_TIMEOUT_MS = 60_000;
const CPU_SLOTS = 3;

const started = Date.now();
const failures = [];
const warnings = [];
const children = new Set();

const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
const log = (line) =>
  console.log(`[pack-test ${seconds(Date.now() - started).padStart(6)}] ${line}`);

function fail(pkg, step, detail) {
  failures.push({ pkg, step, detail: detail.trimEnd() });
  log(`FAIL ${pkg}: ${step}: ${firstLine(detail)}`);
}

function warn(message) {
  warnings.push(message);
  log(`warn ${message}`);
}

function firstLine(text) {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

function indent(text, prefix = "    ") {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Runs a command to completion and collects its output; never rejects. */
function exec(command, argv, { cwd = ROOT, env = process.env, timeoutMs = 300_000 } = {}) {
  return new Promise((resolveRun) => {
    const begin = Date.now();
    const child = spawn(command, argv, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const finish = (code, signal, spawnError) => {
      clearTimeout(timer);
      children.delete(child);
      if (spawnError) stderr += `\n${spawnError.message}`;
      resolveRun({ code, signal, stdout, stderr, timedOut, ms: Date.now() - begin });
    };
    child.on("error", (error) => finish(null, null, error));
    child.on("close", (code, signal) => finish(code, signal));
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

function describeExit(result) {
  if (result.timedOut) return `timed out after ${seconds(result.ms)}`;
  if (result.signal) return `killed by ${result.signal}`;
  return `exit code ${result.code}`;
}

function output(result) {
  return [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join("\n");
}

/** A counting semaphore, so a 2-CPU CI box is not flooded with processes. */
function pool(size) {
  let active = 0;
  const waiting = [];
  const next = () => {
    if (active >= size || waiting.length === 0) return;
    active++;
    const { task, resolveTask, rejectTask } = waiting.shift();
    task()
      .then(resolveTask, rejectTask)
      .finally(() => {
        active--;
        next();
      });
  };
  return (task) =>
    new Promise((resolveTask, rejectTask) => {
      waiting.push({ task, resolveTask, rejectTask });
      next();
    });
}
const slot = pool(CPU_SLOTS);

// ---------------------------------------------------------------------------------------------
// Workspace

async function readJson(file) {
  return JSON.parse(await readFile(file, "utf8"));
}

/** The workspace package directories, from the `packages:` globs of pnpm-workspace.yaml. */
async function workspaceDirs() {
  const yaml = await readFile(join(ROOT, "pnpm-workspace.yaml"), "utf8");
  const globs = [];
  let inPackages = false;
  for (const line of yaml.split("\n")) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true;
      continue;
    }
    if (inPackages) {
      const item = /^\s+-\s+["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(line);
      if (item) globs.push(item[1]);
      else if (/^\S/.test(line)) inPackages = false;
    }
  }
  const dirs = [];
  for (const glob of globs) {
    if (glob.startsWith("!")) continue;
    if (glob.endsWith("/*")) {
      const parent = join(ROOT, glob.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of (await readdir(parent, { withFileTypes: true })).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        if (entry.isDirectory()) dirs.push(join(parent, entry.name));
      }
    } else if (/[*?{[]/.test(glob)) {
      throw new Error(`pnpm-workspace.yaml: glob "${glob}" is not supported by the pack test`);
    } else {
      dirs.push(join(ROOT, glob));
    }
  }
  return dirs.filter((dir) => existsSync(join(dir, "package.json")));
}

function dirName(pkgName) {
  return pkgName.replace(/^@/, "").replace("/", "-");
}

// ---------------------------------------------------------------------------------------------
// Tarballs

async function packAll(packages, pnpm, tarballDir) {
  // Warm npx's cache once, so the parallel calls below do not all download pnpm.
  const warm = await exec("npx", ["-y", pnpm, "--version"]);
  if (warm.code !== 0) throw new Error(`cannot run ${pnpm} through npx:\n${output(warm)}`);
  await Promise.all(
    packages.map((pkg) =>
      slot(async () => {
        const result = await exec(
          "npx",
          ["-y", pnpm, "pack", "--pack-destination", tarballDir, "--json"],
          { cwd: pkg.dir, timeoutMs: 120_000 },
        );
        if (result.code !== 0) {
          fail(pkg.name, "pack", `pnpm pack failed (${describeExit(result)}):\n${output(result)}`);
          return;
        }
        try {
          const start = result.stdout.indexOf("{");
          const info = JSON.parse(result.stdout.slice(start));
          pkg.tarball = info.filename;
        } catch {
          const name = `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
          pkg.tarball = join(tarballDir, name);
        }
        if (!existsSync(pkg.tarball)) {
          fail(pkg.name, "pack", `pnpm pack reported ${pkg.tarball}, which does not exist`);
          pkg.tarball = undefined;
          return;
        }
        log(`ok   ${pkg.name}: packed ${basename(pkg.tarball)} (${seconds(result.ms)})`);
      }),
    ),
  );
}

/** Unpacks a tarball and checks what npm will see: real versions, README, declared files. */
async function inspectTarball(pkg, all, extractRoot) {
  const into = join(extractRoot, dirName(pkg.name));
  await mkdir(into, { recursive: true });
  const untar = await exec("tar", ["-xzf", pkg.tarball, "-C", into]);
  if (untar.code !== 0) {
    fail(pkg.name, "tarball", `cannot unpack ${pkg.tarball}:\n${output(untar)}`);
    return;
  }
  pkg.unpacked = join(into, "package");
  const manifest = await readJson(join(pkg.unpacked, "package.json"));
  pkg.manifest = manifest;
  const versions = new Map(all.map((p) => [p.name, p.version]));
  const problems = [];
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).startsWith("workspace:")) {
        problems.push(`${field}.${dep} is still "${range}"`);
      } else if (versions.has(dep) && range.replace(/^[\^~]/, "") !== versions.get(dep)) {
        problems.push(`${field}.${dep} is "${range}", not the workspace's ${versions.get(dep)}`);
      }
    }
  }
  if (manifest.version !== pkg.version) {
    problems.push(`version is ${manifest.version}, the workspace has ${pkg.version}`);
  }
  if (!existsSync(join(pkg.unpacked, "README.md"))) problems.push("README.md is not in it");
  if (problems.length > 0) {
    fail(pkg.name, "tarball", problems.join("\n"));
  } else {
    log(`ok   ${pkg.name}: tarball has real versions for its dependencies`);
  }
}

async function lintTarball(pkg) {
  const bin = join(ROOT, "node_modules", ".bin");
  const [publint, attw] = await Promise.all([
    slot(() =>
      exec(join(bin, "publint"), ["run", "--strict", pkg.tarball], { timeoutMs: 120_000 }),
    ),
    slot(() =>
      exec(join(bin, "attw"), [pkg.tarball, "--no-color", "--no-emoji"], { timeoutMs: 120_000 }),
    ),
  ]);
  // "Clean" means no message at all, suggestions included.
  if (publint.code !== 0 || !publint.stdout.includes("All good!")) {
    fail(
      pkg.name,
      "publint",
      `publint is not clean (${describeExit(publint)}):\n${output(publint)}`,
    );
  } else {
    log(`ok   ${pkg.name}: publint clean`);
  }
  if (attw.code !== 0 || !attw.stdout.includes("No problems found")) {
    fail(
      pkg.name,
      "attw",
      `are-the-types-wrong found problems (${describeExit(attw)}):\n${output(attw)}`,
    );
  } else {
    log(`ok   ${pkg.name}: are-the-types-wrong clean`);
  }
}

// ---------------------------------------------------------------------------------------------
// README

/** The README's install line, first ```ts block, imports and expected output comments. */
function readReadme(pkg, text) {
  const readme = { install: [], problems: [] };
  const blocks = [...text.matchAll(/^```([\w-]*)[^\n]*\n([\s\S]*?)^```\s*$/gm)].map((m) => ({
    lang: m[1].toLowerCase(),
    code: m[2],
    line: text.slice(0, m.index).split("\n").length + 1,
  }));
  for (const block of blocks) {
    if (!["sh", "bash", "shell", "console"].includes(block.lang)) continue;
    for (const line of block.code.split("\n")) {
      const install = /^\s*\$?\s*(?:npm\s+(?:install|i|add)|pnpm\s+add|yarn\s+add)\s+(.+)$/.exec(
        line,
      );
      if (install) {
        readme.install.push(
          ...install[1]
            .replace(/#.*$/, "")
            .split(/\s+/)
            .filter((word) => word && !word.startsWith("-"))
            .map((spec) => spec.replace(/(.)@[^/]*$/, "$1")),
        );
      }
    }
  }
  if (readme.install.length === 0) readme.problems.push("no `npm install …` line");
  else if (!readme.install.includes(pkg.name)) {
    readme.problems.push(`the install line does not install ${pkg.name}`);
  }
  if (!/^#{2,3}\s+API\b/m.test(text)) readme.problems.push("no `## API` section");
  const example = blocks.find((block) => block.lang === "ts" || block.lang === "typescript");
  if (example === undefined) readme.problems.push("no ```ts example");
  else readme.example = example;
  return readme;
}

/** The package a bare import specifier belongs to (`@a/b/c` -> `@a/b`, `x/y` -> `x`). */
function packageOf(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function isBuiltin(specifier) {
  return specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0]);
}

/** Static facts about the example, read with the TypeScript parser. */
function analyseExample(ts, source) {
  const file = ts.createSourceFile("readme.mts", source, ts.ScriptTarget.Latest, true);
  const imports = [];
  const expected = [];
  let topLevelAwait = false;
  const visit = (node, inFunction) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) imports.push(node.moduleSpecifier.text);
    }
    if (
      !inFunction &&
      (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier))
    ) {
      topLevelAwait = true;
    }
    if (ts.isExpressionStatement(node) && isConsoleLog(ts, node.expression)) {
      for (const range of ts.getTrailingCommentRanges(source, node.end) ?? []) {
        if (range.kind !== ts.SyntaxKind.SingleLineCommentTrivia) continue;
        const text = source.slice(range.pos + 2, range.end).trim();
        const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (text) expected.push({ text, line });
      }
    }
    const nested = inFunction || ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node);
    ts.forEachChild(node, (child) => visit(child, nested));
  };
  visit(file, false);
  return { file, imports, expected, topLevelAwait };
}

function isConsoleLog(ts, expression) {
  return (
    ts.isCallExpression(expression) &&
    ts.isPropertyAccessExpression(expression.expression) &&
    ts.isIdentifier(expression.expression.expression) &&
    expression.expression.expression.text === "console" &&
    expression.expression.name.text === "log"
  );
}

/** The example as ESM JavaScript. */
function toEsm(ts, source) {
  return ts.transpileModule(source, {
    fileName: "readme.mts",
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    reportDiagnostics: false,
  }).outputText;
}

/**
 * The example as CommonJS. Top-level await is not allowed there, so the statements after the
 * imports move into an async main whose rejection fails the process, as an ESM module would.
 */
function toCjs(ts, analysis, source) {
  let wrapped = source;
  if (analysis.topLevelAwait) {
    const imports = [];
    const body = [];
    for (const statement of analysis.file.statements) {
      const text = source.slice(statement.getFullStart(), statement.end);
      (ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement)
        ? imports
        : body
      ).push(text);
    }
    wrapped = [
      imports.join(""),
      "\nasync function main() {",
      body.join(""),
      "\n}\nmain().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n",
    ].join("");
  }
  return ts.transpileModule(wrapped, {
    fileName: "readme.cts",
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
    reportDiagnostics: false,
  }).outputText;
}

/** A README comment `// done The sum is 5.` as a pattern: `…` is a wildcard, quotes and
 * whitespace are loose (Node prints `'5'` where the README writes `"5"`). */
function outputPattern(text) {
  return text
    .split(/…|\.\.\./)
    .map((part) =>
      part
        .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        .replace(/\s+/g, "\\s+")
        .replace(/["'`]/g, "[\"'`]"),
    )
    .join("[\\s\\S]*?");
}

/** Finds each expected line in stdout, in order; returns the first one missing. */
function missingOutput(expected, stdout) {
  let from = 0;
  for (const item of expected) {
    const pattern = new RegExp(outputPattern(item.text), "g");
    pattern.lastIndex = from;
    const match = pattern.exec(stdout);
    if (!match) return item;
    from = match.index + match[0].length;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Fake provider server
//
// Speaks just enough of the Chat Completions and Messages APIs, plain and streamed. When the
// request offers tools and the conversation has no tool result yet, it calls the first tool
// (arguments made up from its JSON Schema); once a tool result is in, it answers FAKE_REPLY.
// So an example with a tool goes through a whole round trip of the packaged adapter.

function startFakeProvider() {
  const requests = new Map();
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const route = /^\/([\w-]+)\/v1\/(chat\/completions|messages)$/.exec(url.pathname);
      let json;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      if (req.method !== "POST" || !route || typeof json !== "object" || json === null) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `fake server: no route ${url.pathname}` } }));
        return;
      }
      const api = route[2] === "messages" ? "anthropic" : "openai";
      const turn = nextTurn(api, json);
      const list = requests.get(route[1]) ?? [];
      list.push({
        api,
        stream: json.stream === true,
        turn,
        hadToolResult: hasToolResult(api, json),
      });
      requests.set(route[1], list);
      const model = typeof json.model === "string" ? json.model : "fake";
      if (api === "openai") openaiReply(res, model, json.stream === true, turn);
      else anthropicReply(res, model, json.stream === true, turn);
    });
  });
  return new Promise((resolveServer, rejectServer) => {
    server.once("error", rejectServer);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolveServer({ server, requests, base: `http://127.0.0.1:${port}` });
    });
  });
}

function hasToolResult(api, body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (api === "openai") return messages.some((m) => m?.role === "tool");
  return messages.some(
    (m) =>
      m?.role === "user" &&
      Array.isArray(m.content) &&
      m.content.some((block) => block?.type === "tool_result"),
  );
}

/** `{ kind: "text" }`, or the tool to call with made-up arguments. */
function nextTurn(api, body) {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length === 0 || hasToolResult(api, body)) return { kind: "text" };
  const tool = tools[0];
  const name = api === "openai" ? tool?.function?.name : tool?.name;
  const schema = api === "openai" ? tool?.function?.parameters : tool?.input_schema;
  if (typeof name !== "string") return { kind: "text" };
  return { kind: "tool", name, args: sampleValue({ type: "object", ...schema }) };
}

function sampleValue(schema) {
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  if (schema?.const !== undefined) return schema.const;
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  switch (type) {
    case "string":
      return "Oslo";
    case "number":
    case "integer":
      return 2;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sampleValue(value)]),
      );
    default:
      return null;
  }
}

function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function halves(text) {
  const cut = Math.floor(text.length / 2);
  return [text.slice(0, cut), text.slice(cut)];
}

function openaiReply(res, model, stream, turn) {
  const id = "chatcmpl-packtest";
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };
  const callId = "call_packtest_1";
  const argsText = turn.kind === "tool" ? JSON.stringify(turn.args) : "";
  const finish = turn.kind === "tool" ? "tool_calls" : "stop";
  if (!stream) {
    const message =
      turn.kind === "tool"
        ? {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: callId, type: "function", function: { name: turn.name, arguments: argsText } },
            ],
          }
        : { role: "assistant", content: FAKE_REPLY };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
    return;
  }
  const chunk = (choices, extra = {}) => [
    null,
    { id, object: "chat.completion.chunk", created, model, choices, ...extra },
  ];
  const delta = (value) => chunk([{ index: 0, delta: value, finish_reason: null }]);
  const [head, tail] = halves(turn.kind === "tool" ? argsText : FAKE_REPLY);
  const fragment = (value) => ({ tool_calls: [{ index: 0, function: { arguments: value } }] });
  sse(res, [
    turn.kind === "tool"
      ? delta({
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              id: callId,
              type: "function",
              function: { name: turn.name, arguments: "" },
            },
          ],
        })
      : delta({ role: "assistant", content: "" }),
    delta(turn.kind === "tool" ? fragment(head) : { content: head }),
    delta(turn.kind === "tool" ? fragment(tail) : { content: tail }),
    chunk([{ index: 0, delta: {}, finish_reason: finish }]),
    chunk([], { usage }),
    [null, "[DONE]"],
  ]);
}

function anthropicReply(res, model, stream, turn) {
  const id = "msg_packtest";
  const stop = turn.kind === "tool" ? "tool_use" : "end_turn";
  const toolId = "toolu_packtest_1";
  if (!stream) {
    const content =
      turn.kind === "tool"
        ? [{ type: "tool_use", id: toolId, name: turn.name, input: turn.args }]
        : [{ type: "text", text: FAKE_REPLY }];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 8 },
      }),
    );
    return;
  }
  const [head, tail] = halves(turn.kind === "tool" ? JSON.stringify(turn.args) : FAKE_REPLY);
  const block =
    turn.kind === "tool"
      ? { type: "tool_use", id: toolId, name: turn.name, input: {} }
      : { type: "text", text: "" };
  const delta = (text) =>
    turn.kind === "tool"
      ? { type: "input_json_delta", partial_json: text }
      : { type: "text_delta", text };
  const message = {
    id,
    type: "message",
    role: "assistant",
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  };
  sse(res, [
    ["message_start", { type: "message_start", message }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: block }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: delta(head) }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: delta(tail) }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 8 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

// ---------------------------------------------------------------------------------------------
// The temp project

const GUARD_ESM = `// Fails the run if an ESM example loaded a CommonJS build of a toolnexus package (two copies
// of one package in a process: the dual-package hazard).
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
process.on("exit", () => {
  const cjs = Object.keys(require.cache).filter((file) => /[\\\\/]node_modules[\\\\/]@toolnexus[\\\\/]/.test(file));
  if (cjs.length > 0) {
    process.stderr.write("pack-test guard: the ESM example loaded CommonJS builds: " + cjs.join(", ") + "\\n");
    process.exitCode = 1;
  }
});
`;

const GUARD_CJS = `// Fails the run unless the CommonJS example really loaded the package's CommonJS build.
const { sep } = require("node:path");
const name = process.env.PACK_TEST_PACKAGE;
process.on("exit", () => {
  const marker = sep + "node_modules" + sep + name.split("/").join(sep) + sep;
  const own = Object.keys(require.cache).filter((file) => file.includes(marker));
  if (own.length === 0) {
    process.stderr.write("pack-test guard: " + name + " was never loaded through require()\\n");
    process.exitCode = 1;
  }
});
`;

/** Writes package.json for the temp project: the tarballs plus what the examples import. */
async function writeProject(projectDir, packages, registryDeps) {
  const dependencies = {};
  const overrides = {};
  for (const pkg of packages) {
    dependencies[pkg.name] = `file:${relative(projectDir, pkg.tarball).split(sep).join("/")}`;
    // Transitive `^0.1.0` ranges must resolve to these tarballs, never to the registry.
    overrides[pkg.name] = `$${pkg.name}`;
  }
  Object.assign(dependencies, registryDeps);
  await writeFile(
    join(projectDir, "package.json"),
    `${JSON.stringify(
      {
        name: "toolnexus-pack-test",
        version: "0.0.0",
        private: true,
        description: "Temporary project made by .ci/pack-test.mjs",
        dependencies,
        overrides,
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(
    join(projectDir, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          lib: ["es2023"],
          types: ["node"],
          noEmit: true,
          skipLibCheck: false,
        },
        include: ["examples/**/*.mts", "examples/**/*.cts"],
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(join(projectDir, "guard-esm.mjs"), GUARD_ESM);
  await writeFile(join(projectDir, "guard-cjs.cjs"), GUARD_CJS);
}

/** Checks npm installed every package from its tarball, once, at the version packed. */
async function checkInstall(projectDir, packages) {
  const lock = await readJson(join(projectDir, "package-lock.json"));
  const entries = Object.entries(lock.packages ?? {});
  for (const pkg of packages) {
    const problems = [];
    const copies = entries.filter(([path]) => path.endsWith(`node_modules/${pkg.name}`));
    const top = lock.packages[`node_modules/${pkg.name}`];
    if (top === undefined) problems.push("not installed at the top of node_modules");
    else {
      if (top.version !== pkg.version)
        problems.push(`installed ${top.version}, packed ${pkg.version}`);
      if (!String(top.resolved ?? "").startsWith("file:")) {
        problems.push(`resolved from ${top.resolved}, not from the tarball`);
      }
    }
    if (copies.length > 1) {
      problems.push(`installed ${copies.length} times: ${copies.map(([path]) => path).join(", ")}`);
    }
    if (problems.length > 0) fail(pkg.name, "npm install", problems.join("\n"));
  }
  return lock;
}

/** Packages with install scripts that a package needs, through its dependencies. */
function nativeDepsOf(lock, name, seen = new Set()) {
  if (seen.has(name)) return [];
  seen.add(name);
  const entry = lock.packages?.[`node_modules/${name}`];
  if (entry === undefined) return [];
  const found = entry.hasInstallScript ? [name] : [];
  for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
    found.push(...nativeDepsOf(lock, dep, seen));
  }
  return [...new Set(found)];
}

async function buildNative(projectDir, names) {
  if (names.length === 0) return true;
  if (REUSE_NATIVE) {
    let reused = true;
    for (const name of names) {
      const installed = await readJson(join(projectDir, "node_modules", name, "package.json"));
      const from = join(
        ROOT,
        "node_modules",
        ".pnpm",
        `${name.replace("/", "+")}@${installed.version}`,
        "node_modules",
        name,
        "build",
      );
      if (existsSync(from)) {
        await cp(from, join(projectDir, "node_modules", name, "build"), { recursive: true });
        log(`ok   ${name}: reused the workspace's native build (--reuse-native)`);
      } else {
        reused = false;
      }
    }
    if (reused) return true;
  }
  log(
    `...  compiling ${names.join(", ")} in the temp project (npm rebuild runs its install script)`,
  );
  const result = await exec("npm", ["rebuild", ...names, "--foreground-scripts"], {
    cwd: projectDir,
    env: { ...npmEnv(), npm_config_build_from_source: "true", JOBS: "max" },
    timeoutMs: 600_000,
  });
  if (result.code !== 0) {
    fail(
      names.join(", "),
      "npm rebuild",
      `${describeExit(result)}:\n${output(result).slice(-4000)}`,
    );
    return false;
  }
  log(`ok   ${names.join(", ")}: compiled (${seconds(result.ms)})`);
  return true;
}

function npmEnv() {
  const env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false" };
  for (const key of Object.keys(env)) {
    // pnpm and turbo set npm_config_* for their own children; keep npm's defaults here.
    if (
      /^npm_config_/i.test(key) &&
      !/^npm_config_(audit|fund|cache|registry|userconfig)$/i.test(key)
    ) {
      delete env[key];
    }
  }
  return env;
}

/** The environment of an example: no API keys, providers pointed at the fake server. */
function exampleEnv(pkgName, fakeBase, runId) {
  const env = { ...process.env, NO_COLOR: "1", PACK_TEST_PACKAGE: pkgName };
  for (const key of Object.keys(env)) {
    if (/^(OPENAI|ANTHROPIC|OPENROUTER)_/.test(key) || key === "NODE_OPTIONS") delete env[key];
  }
  env.OPENAI_BASE_URL = `${fakeBase}/${runId}/v1`;
  env.ANTHROPIC_BASE_URL = `${fakeBase}/${runId}`;
  return env;
}

async function runExample(pkg, format, fake, projectDir) {
  const runId = `${dirName(pkg.name)}-${format}`;
  const cwd = join(projectDir, "runs", runId);
  await mkdir(cwd, { recursive: true });
  const file = join(
    projectDir,
    "examples",
    dirName(pkg.name),
    format === "esm" ? "readme.mjs" : "readme.cjs",
  );
  const flags =
    format === "esm"
      ? ["--import", join(projectDir, "guard-esm.mjs")]
      : [
          // Every require() must find a CommonJS build: no falling back to require(esm).
          ...(process.allowedNodeEnvironmentFlags.has("--no-experimental-require-module")
            ? ["--no-experimental-require-module"]
            : []),
          "--require",
          join(projectDir, "guard-cjs.cjs"),
        ];
  const result = await slot(() =>
    exec(process.execPath, [...flags, file], {
      cwd,
      env: exampleEnv(pkg.name, fake.base, runId),
      timeoutMs: EXAMPLE_TIMEOUT_MS,
    }),
  );
  const step = `${format === "esm" ? "ESM" : "CommonJS"} example`;
  const where = `README line ${pkg.readme.example.line}, run as ${relative(projectDir, file)} in ${cwd}`;
  if (result.code !== 0 || result.timedOut) {
    fail(pkg.name, step, `${describeExit(result)} (${where}):\n${output(result)}`);
    return;
  }
  if (result.stderr.trim() !== "") {
    fail(pkg.name, step, `wrote to stderr (${where}):\n${result.stderr}`);
    return;
  }
  const missing = missingOutput(pkg.analysis.expected, result.stdout);
  if (missing) {
    fail(
      pkg.name,
      step,
      `the output has no "${missing.text}" (the README's comment on example line ${missing.line}):\n` +
        `stdout was:\n${indent(result.stdout || "(empty)")}`,
    );
    return;
  }
  const api = PROVIDER_APIS[pkg.name];
  let talked = "";
  if (api !== undefined) {
    const made = (fake.requests.get(runId) ?? []).filter((request) => request.api === api);
    const problems = [];
    if (made.length === 0) {
      problems.push(
        `the example sent no request to the fake ${api} server (it reads ${
          api === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL"
        }; a hard-coded baseUrl bypasses it)`,
      );
    }
    const called = made.filter((request) => request.turn.kind === "tool");
    if (called.length > 0 && !made.some((request) => request.hadToolResult)) {
      problems.push("the fake model called a tool, but no request came back with its result");
    }
    if (made.length > 0 && !result.stdout.includes(FAKE_REPLY)) {
      problems.push(`the fake model's answer "${FAKE_REPLY}" is not in the output`);
    }
    if (problems.length > 0) {
      fail(
        pkg.name,
        step,
        `${problems.join("\n")} (${where})\nstdout was:\n${indent(result.stdout || "(empty)")}`,
      );
      return;
    }
    const modes = [...new Set(made.map((request) => (request.stream ? "streamed" : "plain")))];
    talked =
      `, ${made.length} request(s) to the fake ${api} server (${modes.join(" and ")}` +
      `${called.length > 0 ? `, ${called.length} tool round trip(s)` : ""}), its answer printed`;
  }
  const checked = pkg.analysis.expected.length;
  log(
    `ok   ${pkg.name}: ${step} exits 0, no stderr` +
      (checked > 0 ? `, ${checked} expected output line(s) found` : "") +
      talked +
      ` (${seconds(result.ms)})`,
  );
}

/** One tsc over every README example (.mts) and every entry point imported from ESM and CJS. */
async function typecheck(projectDir, packages) {
  const tsc = join(projectDir, "node_modules", "typescript", "bin", "tsc");
  const result = await slot(() =>
    exec(process.execPath, [tsc, "-p", join(projectDir, "tsconfig.json"), "--pretty", "false"], {
      cwd: projectDir,
      timeoutMs: 180_000,
    }),
  );
  if (result.code === 0) {
    for (const pkg of packages) {
      if (pkg.typechecked) log(`ok   ${pkg.name}: tsc --noEmit (strict, nodenext, ESM and CJS)`);
    }
    log(`     (one tsc run for all packages took ${seconds(result.ms)})`);
    return;
  }
  const byPackage = new Map();
  let current = "(all packages)";
  for (const line of output(result).split("\n")) {
    const head = /^(\S[^(]*)\(\d+,\d+\): /.exec(line);
    if (head) {
      const file = head[1].split(sep).join("/");
      const pkg =
        packages.find((p) => file.startsWith(`examples/${dirName(p.name)}/`)) ??
        packages.find((p) => file.includes(`node_modules/${p.name}/`));
      current = pkg ? pkg.name : "(all packages)";
    }
    byPackage.set(current, [...(byPackage.get(current) ?? []), line]);
  }
  for (const [name, lines] of byPackage) {
    fail(name, "typecheck", `tsc --noEmit (strict, nodenext) failed:\n${lines.join("\n")}`);
  }
  for (const pkg of packages) {
    if (pkg.typechecked && !byPackage.has(pkg.name)) log(`ok   ${pkg.name}: tsc --noEmit`);
  }
}

// ---------------------------------------------------------------------------------------------
// Changesets

function parseFrontMatter(text) {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  const releases = [];
  const bad = [];
  for (const line of match[1].split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const release = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch|none)\s*$/.exec(line);
    if (release) releases.push({ name: release[1], type: release[2] });
    else bad.push(line);
  }
  return { releases, bad, summary: text.slice(match[0].length).trim() };
}

function compareVersions(a, b) {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) {
    if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  }
  return 0;
}

/** `changeset version` in a throwaway clone of the committed state. */
async function checkChangesets(tempDir, publicNames) {
  const step = "changeset version";
  const inGit = await exec("git", ["rev-parse", "--is-inside-work-tree"]);
  if (inGit.code !== 0) {
    warn(`changesets: ${ROOT} is not a git checkout; skipped`);
    return;
  }
  const clone = join(tempDir, "clone");
  const cloned = await exec("git", ["clone", "-q", "--no-hardlinks", ROOT, clone], {
    timeoutMs: 120_000,
  });
  if (cloned.code !== 0) {
    fail("(changesets)", step, `git clone failed:\n${output(cloned)}`);
    return;
  }
  const dirty = await exec("git", ["status", "--porcelain", "--", ".changeset"]);
  if (dirty.stdout.trim() !== "") {
    warn(
      "changesets: checked the committed .changeset/; this checkout has uncommitted changes there",
    );
  }
  const changesetDir = join(clone, ".changeset");
  const files = existsSync(changesetDir)
    ? (await readdir(changesetDir)).filter((f) => f.endsWith(".md") && f !== "README.md")
    : [];
  const before = new Map();
  for (const dir of await workspaceDirsIn(clone)) {
    const manifest = await readJson(join(dir, "package.json"));
    before.set(manifest.name, {
      dir,
      version: manifest.version,
      private: manifest.private === true,
    });
  }
  const expectations = [];
  let ok = true;
  for (const file of files) {
    const parsed = parseFrontMatter(await readFile(join(changesetDir, file), "utf8"));
    const problems = [];
    if (parsed === undefined) {
      problems.push(
        'no front matter: the file must start with `---`, then lines `"@scope/name": minor`, ' +
          "then `---` (a Markdown formatter may have rewritten it)",
      );
    } else {
      if (parsed.bad.length > 0)
        problems.push(`lines that are not "package": bump: ${parsed.bad.join(" | ")}`);
      if (parsed.releases.length === 0) problems.push("the front matter names no package");
      for (const release of parsed.releases) {
        if (!before.has(release.name)) problems.push(`${release.name} is not a workspace package`);
      }
      if (parsed.summary === "") problems.push("no summary");
      for (const release of parsed.releases) {
        expectations.push({ file, name: release.name, summary: parsed.summary.split("\n")[0] });
      }
    }
    if (problems.length > 0) {
      fail("(changesets)", `.changeset/${file}`, problems.join("\n"));
      ok = false;
    }
  }
  if (files.length === 0) {
    // Nothing pending (just after a release): a probe proves the pipeline still works.
    const probe = publicNames[0];
    await writeFile(
      join(changesetDir, "pack-test-probe.md"),
      `---\n"${probe}": patch\n---\n\nPack test probe.\n`,
    );
    expectations.push({ file: "pack-test-probe.md", name: probe, summary: "Pack test probe." });
    log("     no pending changesets; checking with a probe patch changeset in the clone");
  }
  const cli = createRequire(join(ROOT, "package.json")).resolve("@changesets/cli/bin.js");
  const result = await exec(process.execPath, [cli, "version"], { cwd: clone, timeoutMs: 120_000 });
  if (result.code !== 0) {
    fail("(changesets)", step, `${describeExit(result)} in a clone of HEAD:\n${output(result)}`);
    return;
  }
  const problems = [];
  const after = new Map();
  for (const [name, info] of before) {
    after.set(name, (await readJson(join(info.dir, "package.json"))).version);
  }
  const names = publicNames.filter((name) => before.has(name) && !before.get(name).private);
  const newVersions = new Set(names.map((name) => after.get(name)));
  if (newVersions.size !== 1) {
    problems.push(
      `public packages were not bumped together (fixed group): ${names
        .map((name) => `${name}@${after.get(name)}`)
        .join(", ")}`,
    );
  }
  for (const name of names) {
    const { dir, version } = before.get(name);
    const next = after.get(name);
    if (compareVersions(next, version) <= 0) problems.push(`${name} stayed at ${version}`);
    const changelog = join(dir, "CHANGELOG.md");
    if (!existsSync(changelog)) {
      problems.push(`${name} has no CHANGELOG.md`);
      continue;
    }
    const text = await readFile(changelog, "utf8");
    if (!text.includes(`## ${next}`)) problems.push(`${name}'s CHANGELOG.md has no "## ${next}"`);
    for (const expectation of expectations.filter((e) => e.name === name)) {
      if (!text.includes(expectation.summary)) {
        problems.push(`${name}'s CHANGELOG.md lacks the entry from .changeset/${expectation.file}`);
      }
    }
  }
  const left = (await readdir(changesetDir)).filter((f) => f.endsWith(".md") && f !== "README.md");
  if (left.length > 0) problems.push(`changesets not consumed: ${left.join(", ")}`);
  const versionedPrivate = [...before]
    .filter(([name, info]) => info.private && after.get(name) !== info.version)
    .map(([name, info]) => `${name} ${info.version} -> ${after.get(name)}`);
  if (versionedPrivate.length > 0) {
    warn(
      `changesets: private packages were versioned too (${versionedPrivate.join(", ")}); ` +
        `"privatePackages": { "version": false, "tag": false } in .changeset/config.json stops that`,
    );
  }
  if (problems.length > 0) {
    fail("(changesets)", step, problems.join("\n"));
  } else if (ok) {
    const from = [...new Set(names.map((name) => before.get(name).version))].join("/");
    log(
      `ok   changesets: \`changeset version\` in a clone bumps all ${names.length} public ` +
        `packages ${from} -> ${[...newVersions][0]} and writes their CHANGELOGs (${seconds(result.ms)})`,
    );
  }
}

async function workspaceDirsIn(root) {
  const yaml = join(root, "pnpm-workspace.yaml");
  if (!existsSync(yaml)) return [];
  const dirs = await workspaceDirs();
  return dirs
    .map((dir) => join(root, relative(ROOT, dir)))
    .filter((dir) => existsSync(join(dir, "package.json")));
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const rootManifest = await readJson(join(ROOT, "package.json"));
  const pnpm = rootManifest.packageManager?.split("+")[0] ?? "pnpm";
  const all = [];
  for (const dir of await workspaceDirs()) {
    const manifest = await readJson(join(dir, "package.json"));
    all.push({
      dir,
      name: manifest.name,
      version: manifest.version,
      private: manifest.private === true,
      source: manifest,
    });
  }
  const packages = all.filter((pkg) => !pkg.private);
  log(`public packages: ${packages.map((pkg) => pkg.name).join(", ")}`);
  log(
    `private, not packed: ${
      all
        .filter((pkg) => pkg.private)
        .map((pkg) => pkg.name)
        .join(", ") || "none"
    }`,
  );

  for (const pkg of packages) {
    if (!existsSync(join(pkg.dir, "dist"))) {
      fail(
        pkg.name,
        "build",
        `no dist/ in ${relative(ROOT, pkg.dir)}: build it first (pnpm build)`,
      );
    }
  }
  if (failures.length > 0) return;

  const tempDir = await mkdtemp(join(tmpdir(), "toolnexus-pack-"));
  log(`temp dir ${tempDir}`);
  const fake = await startFakeProvider();
  try {
    await runAll({ tempDir, packages, all, pnpm, fake, rootManifest });
  } finally {
    fake.server.close();
    if (KEEP || failures.length > 0) {
      log(`temp dir kept: ${tempDir}${KEEP ? "" : " (failed; remove it when done)"}`);
    } else {
      await rm(tempDir, { recursive: true, force: true });
    }
  }
}

async function runAll({ tempDir, packages, all, pnpm, fake, rootManifest }) {
  const tarballDir = join(tempDir, "tarballs");
  const projectDir = join(tempDir, "project");
  await mkdir(tarballDir, { recursive: true });
  await mkdir(projectDir, { recursive: true });

  const changesets = SKIP_CHANGESETS
    ? Promise.resolve(log("     changesets check skipped (--skip-changesets)"))
    : checkChangesets(
        tempDir,
        packages.map((pkg) => pkg.name),
      );

  await packAll(packages, pnpm, tarballDir);
  const packed = packages.filter((pkg) => pkg.tarball);
  await Promise.all(packed.map((pkg) => inspectTarball(pkg, all, join(tempDir, "unpacked"))));
  // publint and attw wait until npm install is done: the native build should start early.
  const lintAll = () => Promise.all(packed.map((pkg) => lintTarball(pkg)));
  if (packed.length < packages.length) {
    // npm would fetch the missing ones from the registry, which is not what is being tested.
    log("     not installing: some packages did not pack");
    await Promise.all([lintAll(), changesets]);
    return;
  }

  // README checks, on the README inside the tarball (what npm shows).
  const registryDeps = {};
  const declared = (name) => {
    for (const manifest of [...all.map((p) => p.source), rootManifest]) {
      for (const field of ["dependencies", "peerDependencies", "devDependencies"]) {
        const range = manifest[field]?.[name];
        if (range && !String(range).startsWith("workspace:")) return range;
      }
    }
    return undefined;
  };
  registryDeps.typescript = declared("typescript") ?? "latest";
  registryDeps["@types/node"] = declared("@types/node") ?? "^20";
  for (const pkg of packed) {
    if (!pkg.unpacked) continue;
    const readmeFile = join(pkg.unpacked, "README.md");
    if (!existsSync(readmeFile)) {
      fail(
        pkg.name,
        "README",
        "the package has no README.md (so no install line, example or API section)",
      );
      continue;
    }
    pkg.readme = readReadme(pkg, await readFile(readmeFile, "utf8"));
  }

  // What the examples import from the registry (zod, …), at the range the workspace declares,
  // as a user following the README would install it. The TypeScript parser is not installed
  // yet, so this first look at the imports is a plain scan; the parser checks them below.
  for (const pkg of packed) {
    for (const match of (pkg.readme?.example?.code ?? "").matchAll(
      /\b(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g,
    )) {
      const name = packageOf(match[1]);
      if (isBuiltin(match[1]) || packed.some((p) => p.name === name) || registryDeps[name])
        continue;
      const range = declared(name);
      if (range) registryDeps[name] = range;
      else
        fail(
          pkg.name,
          "README",
          `the first example imports ${name}, which no workspace package declares`,
        );
    }
  }
  await writeProject(projectDir, packed, registryDeps);
  log(
    `...  npm install of the tarballs and ${Object.keys(registryDeps).join(", ")} in the temp project`,
  );
  const install = await exec(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"],
    { cwd: projectDir, env: npmEnv(), timeoutMs: 600_000 },
  );
  if (install.code !== 0) {
    fail("(all packages)", "npm install", `${describeExit(install)}:\n${output(install)}`);
    await Promise.all([lintAll(), changesets]);
    return;
  }
  log(`ok   npm install (${seconds(install.ms)})`);
  const ts = createRequire(join(projectDir, "package.json"))("typescript");

  // Examples: what they import, parsed this time.
  for (const pkg of packed) {
    const readme = pkg.readme;
    if (!readme) continue;
    if (readme.example) {
      pkg.analysis = analyseExample(ts, readme.example.code);
      const bare = pkg.analysis.imports
        .filter((s) => !s.startsWith(".") && !isBuiltin(s))
        .map(packageOf);
      if (!bare.includes(pkg.name))
        readme.problems.push(`the first example does not import ${pkg.name}`);
      const uninstalled = [...new Set(bare)].filter((name) => !readme.install.includes(name));
      if (readme.install.length > 0 && uninstalled.length > 0) {
        readme.problems.push(
          `the first example imports ${uninstalled.join(", ")}, which the install line does not install`,
        );
      }
    }
    if (readme.problems.length > 0) fail(pkg.name, "README", readme.problems.join("\n"));
  }
  const lock = await checkInstall(projectDir, packed);

  const native = [...new Set(packed.flatMap((pkg) => nativeDepsOf(lock, pkg.name)))];
  const nativeBuilt = buildNative(projectDir, native);
  const lints = lintAll();

  for (const pkg of packed) {
    if (!pkg.manifest) continue;
    const dir = join(projectDir, "examples", dirName(pkg.name));
    await mkdir(dir, { recursive: true });
    const entries = Object.keys(pkg.manifest.exports ?? { ".": null })
      .filter((key) => !key.endsWith(".json") && !key.includes("*"))
      .map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, "")}`));
    const api = [
      `// Every entry point of ${pkg.name}, resolved the way a user's project resolves it.`,
      ...entries.map((spec, i) => `import * as entry${i} from "${spec}";`),
      `export type Entries = [${entries.map((_, i) => `typeof entry${i}`).join(", ")}];`,
      "",
    ].join("\n");
    await writeFile(join(dir, "api.mts"), api);
    await writeFile(join(dir, "api.cts"), api);
    pkg.typechecked = true;
    if (pkg.analysis) {
      const source = pkg.readme.example.code;
      await writeFile(join(dir, "readme.mts"), source);
      await writeFile(join(dir, "readme.mjs"), toEsm(ts, source));
      await writeFile(join(dir, "readme.cjs"), toCjs(ts, pkg.analysis, source));
    }
  }

  const typechecked = typecheck(
    projectDir,
    packed.filter((pkg) => pkg.typechecked),
  );
  const runs = [];
  for (const pkg of packed.filter((p) => p.analysis)) {
    const needsNative = nativeDepsOf(lock, pkg.name).length > 0;
    for (const format of ["esm", "cjs"]) {
      runs.push(
        (needsNative ? nativeBuilt : Promise.resolve(true)).then((built) =>
          built
            ? runExample(pkg, format, fake, projectDir)
            : fail(
                pkg.name,
                `${format === "esm" ? "ESM" : "CommonJS"} example`,
                "not run: its native dependency did not build",
              ),
        ),
      );
    }
  }
  await Promise.all([typechecked, ...runs, nativeBuilt, lints, changesets]);
}

const interrupt = () => {
  for (const child of children) killGroup(child);
  process.exit(130);
};
process.on("SIGINT", interrupt);
process.on("SIGTERM", interrupt);

try {
  await main();
} catch (error) {
  fail(
    "(pack test)",
    "internal error",
    error instanceof Error ? (error.stack ?? error.message) : String(error),
  );
}

const total = seconds(Date.now() - started);
if (warnings.length > 0) {
  console.log(`\npack-test: ${warnings.length} warning(s):`);
  for (const message of warnings) console.log(`  - ${message}`);
}
if (failures.length > 0) {
  console.error(`\npack-test: FAILED in ${total}, ${failures.length} failure(s):`);
  for (const { pkg, step, detail } of failures) {
    console.error(`\n✗ ${pkg}: ${step}\n${indent(detail)}`);
  }
  process.exit(1);
}
console.log(`\npack-test: passed in ${total}`);
