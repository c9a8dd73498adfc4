// What the pack test reads from a package README: the install line, the first ```ts example,
// and the `// expected output` comments after its console.log calls.
import { builtinModules } from "node:module";

/** The README's install line, first ```ts block and the problems found on the way. */
export function readReadme(pkgName, text) {
  const readme = { install: [], problems: [] };
  const blocks = [...text.matchAll(/^```([\w-]*)[^\n]*\n([\s\S]*?)^```\s*$/gm)].map((m) => ({
    lang: m[1].toLowerCase(),
    code: m[2],
    line: text.slice(0, m.index).split("\n").length + 1,
  }));
  for (const block of blocks.filter((b) => ["sh", "bash", "shell", "console"].includes(b.lang))) {
    for (const line of block.code.split("\n")) {
      const install = /^\s*\$?\s*(?:npm\s+(?:install|i|add)|pnpm\s+add|yarn\s+add)\s+(.+)$/.exec(
        line,
      );
      if (!install) continue;
      const words = install[1].replace(/#.*$/, "").split(/\s+/);
      readme.install.push(
        ...words
          .filter((w) => w && !w.startsWith("-"))
          .map((spec) => spec.replace(/(.)@[^/]*$/, "$1")),
      );
    }
  }
  if (!readme.install.includes(pkgName)) readme.problems.push(`no \`npm install ${pkgName}\` line`);
  if (!/^#{2,3}\s+API\b/m.test(text)) readme.problems.push("no `## API` section");
  readme.example = blocks.find((block) => block.lang === "ts" || block.lang === "typescript");
  if (readme.example === undefined) readme.problems.push("no ```ts example");
  return readme;
}

/** The package a bare import specifier belongs to (`@a/b/c` -> `@a/b`, `x/y` -> `x`). */
export function packageOf(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

export function isBuiltin(specifier) {
  return specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0]);
}

/** The bare packages an example imports, by a plain scan (before TypeScript is installed). */
export function importedPackages(code) {
  const found = new Set();
  for (const match of code.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g)) {
    if (!isBuiltin(match[1])) found.add(packageOf(match[1]));
  }
  return [...found];
}

/** Parses the example: whether it awaits at the top level, and its expected output lines. */
export function analyseExample(ts, source) {
  const file = ts.createSourceFile("readme.mts", source, ts.ScriptTarget.Latest, true);
  const expected = [];
  let topLevelAwait = false;
  const visit = (node, inFunction) => {
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
        if (text)
          expected.push({
            text,
            line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          });
      }
    }
    const nested = inFunction || ts.isFunctionLike(node);
    ts.forEachChild(node, (child) => visit(child, nested));
  };
  visit(file, false);
  return { file, expected, topLevelAwait };
}

function isConsoleLog(ts, e) {
  return (
    ts.isCallExpression(e) &&
    ts.isPropertyAccessExpression(e.expression) &&
    ts.isIdentifier(e.expression.expression) &&
    e.expression.expression.text === "console" &&
    e.expression.name.text === "log"
  );
}

/** The example as ESM JavaScript. */
export function toEsm(ts, source) {
  const options = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 };
  return ts.transpileModule(source, { fileName: "readme.mts", compilerOptions: options })
    .outputText;
}

/** The example as CommonJS; top-level statements move into an async main when it awaits. */
export function toCjs(ts, analysis, source) {
  let wrapped = source;
  if (analysis.topLevelAwait) {
    const imports = [];
    const body = [];
    for (const statement of analysis.file.statements) {
      const text = source.slice(statement.getFullStart(), statement.end);
      (ts.isImportDeclaration(statement) ? imports : body).push(text);
    }
    wrapped = `${imports.join("")}\nasync function main() {${body.join("")}\n}\nmain().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`;
  }
  const options = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
  };
  return ts.transpileModule(wrapped, { fileName: "readme.cts", compilerOptions: options })
    .outputText;
}

/**
 * The first expected line missing from stdout, in order. `…` in a README comment is a wildcard;
 * quotes and whitespace are loose (Node prints `'5'` where the README writes `"5"`).
 */
export function missingOutput(expected, stdout) {
  let from = 0;
  for (const item of expected) {
    const source = item.text
      .split(/…|\.\.\./)
      .map((part) =>
        part
          .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
          .replace(/\s+/g, "\\s+")
          .replace(/["'`]/g, "[\"'`]"),
      )
      .join("[\\s\\S]*?");
    const pattern = new RegExp(source, "g");
    pattern.lastIndex = from;
    const match = pattern.exec(stdout);
    if (!match) return item;
    from = match.index + match[0].length;
  }
  return undefined;
}
