#!/usr/bin/env node
// Lists source functions (packages/*/src, adapters/*/src, examples/*/src; tests excluded) longer than a limit,
// longest first. `node scripts/function-lengths.mjs [limit]` (default 120) exits 1 when any is found.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

export function longFunctions(limit = 120, cwd = process.cwd()) {
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "packages", "adapters", "examples"], { cwd, encoding: "utf8" })
    .split("\n")
    .filter((f) => /^(packages|adapters|examples)\/[^/]+\/src\/.*\.tsx?$/.test(f) && !/\.test\.tsx?$|\.d\.ts$/.test(f));
  const found = [];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(`${cwd}/${file}`, "utf8");
    } catch {
      continue; // deleted in the working tree
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.end).line;
        const lines = end - start + 1;
        const name = node.name ? node.name.getText(source) : "(anonymous)";
        if (lines > limit) found.push({ file, line: start + 1, name, lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const limit = Number(process.argv[2] ?? 120);
  const found = longFunctions(limit);
  for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(found.length ? `${found.length} functions over ${limit} lines` : `no function over ${limit} lines`);
  process.exit(found.length ? 1 : 0);
}
