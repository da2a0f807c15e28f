#!/usr/bin/env node
// The package-to-package direction of CONTRIBUTING.md §1 as a table, and the scan that holds every source file of
// packages/*/src and adapters/*/src to it: each `@mountkit/*` import (static, `export … from`, `import()`, `require()`,
// `import("…")` types) must be an edge of the importer's row, and no relative import may leave its package folder.
// `node scripts/package-direction.mjs` lists the imports that break it (file:line and the rule) and exits 1 on any;
// test/structure.test.ts runs the same scan.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";

const SERVICES = ["support", "memory", "entries"];

/**
 * What each workspace package may import, by folder. `may` lists packages by their name after `@mountkit/`: a bare
 * name allows the package and every subpath, `name/sub` that subpath only; `{ to, types: true }` allows type-only
 * imports (`import type`, `export type`), which leave nothing of the target in the importer's output. A package may
 * always import its own subpaths. A folder without a row fails the scan, so a new package starts with a decision.
 */
export const DIRECTION = {
  "packages/core": { may: [], rule: "core imports no other workspace package" },
  "packages/support": { may: ["core"], rule: "a service (support, memory, entries) imports only @mountkit/core" },
  "packages/memory": { may: ["core"], rule: "a service (support, memory, entries) imports only @mountkit/core" },
  "packages/entries": { may: ["core"], rule: "a service (support, memory, entries) imports only @mountkit/core" },
  "packages/sql": { may: ["core", ...SERVICES], rule: "sql implements the store interfaces of core and the services, and imports nothing else" },
  "packages/testing": { may: ["core", ...SERVICES], rule: "testing re-exports the conformance suites of core and the services" },
  "packages/support-client": {
    may: [{ to: "support/wire", types: true }],
    rule: "support-client depends on no other package: it takes only the wire types of @mountkit/support/wire, inlined at build time",
  },
  "packages/support-widget": { may: ["core", "support-client"], rule: "a support page imports core (dom, browser-bundle) and support-client" },
  "packages/support-inbox": { may: ["core", "support-client"], rule: "a support page imports core (dom, browser-bundle) and support-client" },
  "packages/memory-explorer": { may: ["core"], rule: "the memory explorer page imports only core (dom, browser-bundle)" },
  "packages/entries-catalogue": {
    may: ["core", { to: "entries", types: true }],
    rule: "the catalogue page imports core and only the types of @mountkit/entries (nothing of the server is bundled)",
  },
  "packages/api-reference": { may: ["core"], rule: "the API reference page imports only core" },
  "adapters/node": { may: ["core"], rule: "adapters → node → core: the Node bridge imports only core" },
  "adapters/express": { may: ["core", "node"], rule: "adapters → node → core: an adapter imports core and node, never a service" },
  "adapters/fastify": { may: ["core", "node"], rule: "adapters → node → core: an adapter imports core and node, never a service" },
  "adapters/fetch": { may: ["core", "node"], rule: "adapters → node → core: an adapter imports core and node, never a service" },
};

/** The package folder (`packages/x`, `adapters/y`) of a repository-relative path. */
const packageOf = (file) => file.split("/").slice(0, 2).join("/");

/** Every module specifier in `text`, with its 1-based line and whether only types are imported. */
export function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found = [];
  const add = (literal, typeOnly) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    found.push({ spec: literal.text, line: source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1, typeOnly });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : [];
      const onlyTypes = !!clause && (clause.isTypeOnly || (!clause.name && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, onlyTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : [];
      add(node.moduleSpecifier, node.isTypeOnly || (named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether the row of `pkg` lets it import `target` (`name` or `name/sub` after `@mountkit/`). */
function allowed(row, target, typeOnly) {
  const [name] = target.split("/");
  return row.may.some((edge) => {
    const to = typeof edge === "string" ? edge : edge.to;
    if (typeof edge !== "string" && edge.types && !typeOnly) return false;
    return to.includes("/") ? target === to : name === to;
  });
}

/**
 * Module specifiers of `text` with their 1-based line, from TypeScript's import scanner (about four times faster than
 * a parse; the full parse in importsOf runs only for a file with an edge that only types may take).
 */
export function quickImports(text) {
  const refs = ts.preProcessFile(text, true, true).importedFiles.sort((a, b) => a.pos - b.pos);
  let line = 1;
  let at = 0;
  return refs.map((r) => {
    for (; at < r.pos; at++) if (text.charCodeAt(at) === 10) line++;
    return { spec: r.fileName, line };
  });
}

/** The imports of one file (repository-relative `file`) that break the direction, as `file:line message` strings. */
export function violationsIn(file, text, table = DIRECTION, imports = quickImports(text)) {
  const pkg = packageOf(file);
  const row = table[pkg];
  if (!row) return [`${file}:1 ${pkg} has no row in the direction table (scripts/package-direction.mjs): add one from CONTRIBUTING.md §1`];
  // a package may import its own subpaths; every workspace package is named `@mountkit/<its folder's name>`
  const self = pkg.split("/")[1];
  let parsed;
  const out = [];
  for (const { spec, line } of imports) {
    if (spec.startsWith(".")) {
      const target = normalize(join(dirname(file), spec));
      if (target !== pkg && !target.startsWith(`${pkg}/`))
        out.push(`${file}:${line} imports ${spec} (${target}), outside ${pkg}: another package is imported by its name, never by a relative path`);
      continue;
    }
    if (!spec.startsWith("@mountkit/")) continue;
    const target = spec.slice("@mountkit/".length);
    if (target.split("/")[0] === self || allowed(row, target, false)) continue;
    parsed ??= importsOf(file, text);
    const typeOnly = parsed.some((i) => i.spec === spec && i.line === line && i.typeOnly);
    if (!allowed(row, target, typeOnly)) out.push(`${file}:${line} imports ${spec}${typeOnly ? " (types)" : ""}: ${row.rule} (CONTRIBUTING.md §1)`);
  }
  return out;
}

/** Source files of packages/*\/src and adapters/*\/src (tracked or new, not ignored), repository-relative. */
export function sourceFiles(root) {
  return execFileSync("git", ["ls-files", "-co", "--exclude-standard", "packages", "adapters"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => /^(packages|adapters)\/[^/]+\/src\/.*\.(tsx?|mts|cts|mjs|cjs|js)$/.test(f) && !f.endsWith(".d.ts"));
}

/** Scans every source file under `root`: the violations, and how many files and workspace imports were read. */
export function directionViolations(root = process.cwd()) {
  const violations = [];
  let files = 0;
  let workspaceImports = 0;
  for (const file of sourceFiles(root)) {
    let text;
    try {
      text = readFileSync(join(root, file), "utf8");
    } catch {
      continue; // deleted in the working tree
    }
    files++;
    const imports = quickImports(text);
    workspaceImports += imports.filter((i) => i.spec.startsWith("@mountkit/")).length;
    violations.push(...violationsIn(file, text, DIRECTION, imports));
  }
  return { violations, files, workspaceImports };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { violations, files, workspaceImports } = directionViolations();
  for (const v of violations) console.log(v);
  console.log(`${files} files, ${workspaceImports} @mountkit imports: ${violations.length ? `${violations.length} against the direction` : "all in the direction"}`);
  process.exit(violations.length ? 1 : 0);
}
