#!/usr/bin/env node
// Import cycles among one package's own source files: every relative import and re-export (type-only ones too, since
// a cycle of types is still two files that cannot be read apart) and every `#` import of the package's `imports`
// map, followed to each file it may resolve to. CONTRIBUTING.md asks for shared types to move down into a module both
// sides import instead. `node scripts/import-cycles.mjs` lists each cycle of packages/*/src and adapters/*/src and
// exits 1 on any; test/structure.test.ts runs the same scan.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";

/** The modules a file imports, as repository paths: relative specifiers and `#` entries of `imports`. */
export function importsOf(file, text, importsMap = {}) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out = new Set();
  const add = (spec) => {
    if (spec.startsWith("#")) {
      for (const target of conditionTargets(importsMap[spec])) out.add(target);
      return;
    }
    if (!spec.startsWith(".")) return;
    const base = normalize(join(dirname(file), spec)).replace(/\.js$/, "");
    out.add(`${base}.ts`);
  };
  for (const s of source.statements) {
    if ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier))
      add(s.moduleSpecifier.text);
  }
  return [...out];
}

/** Every file an `imports` entry may resolve to (any condition), as paths relative to the package folder. */
function conditionTargets(entry) {
  if (!entry) return [];
  if (typeof entry === "string") return [entry];
  return Object.values(entry).flatMap(conditionTargets);
}

/**
 * The cycles of a graph `file → files`, one per strongly connected group of two or more files (or one file importing
 * itself), each as the files of the group in a stable order.
 */
export function cyclesOf(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The TypeScript files under `dir` (repository-relative), declaration files aside. */
function sourceFiles(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(root, path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The import cycles of each package under `root`, as lines naming the package and the files of each cycle. */
export function importCycles(root) {
  const files = ["packages", "adapters"].flatMap((top) =>
    readdirSync(join(root, top))
      .filter((name) => existsSync(join(root, top, name, "src")))
      .flatMap((name) => sourceFiles(root, `${top}/${name}/src`)),
  );
  const byPackage = new Map();
  for (const f of files) {
    const pkg = f.split("/").slice(0, 2).join("/");
    if (!byPackage.has(pkg)) byPackage.set(pkg, []);
    byPackage.get(pkg).push(f);
  }
  const out = [];
  for (const [pkg, list] of byPackage) {
    const manifest = join(root, pkg, "package.json");
    const importsMap = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")).imports ?? {}) : {};
    const local = Object.fromEntries(
      Object.entries(importsMap).map(([k, v]) => [k, conditionTargets(v).map((t) => normalize(join(pkg, t)))]),
    );
    const graph = new Map(list.map((f) => [f, importsOf(f, readFileSync(join(root, f), "utf8"), local)]));
    for (const group of cyclesOf(graph)) out.push(`${pkg}: ${group.map((f) => relative(pkg, f)).join(" ⇄ ")}`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cycles = importCycles(process.cwd());
  for (const c of cycles) console.log(c);
  console.log(cycles.length === 0 ? "no import cycle" : `${cycles.length} import cycle(s)`);
  process.exit(cycles.length === 0 ? 0 : 1);
}
