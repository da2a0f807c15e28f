// The shape the code keeps (CONTRIBUTING.md): no source function over 120 lines, every package's root
// entry names its exports (no `export *`), so what a package offers is a list a reader can see, and every
// workspace import runs in the package direction of CONTRIBUTING.md §1 (scripts/package-direction.mjs), and no
// package's files import each other in a circle, types included (scripts/import-cycles.mjs).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { longFunctions } from "../scripts/function-lengths.mjs";
// @ts-expect-error: a plain .mjs script without types
import { cyclesOf, importCycles, importsOf } from "../scripts/import-cycles.mjs";
// @ts-expect-error: a plain .mjs script without types
import { DIRECTION, directionViolations, violationsIn } from "../scripts/package-direction.mjs";

const ROOT = new URL("..", import.meta.url).pathname;

describe("structure", () => {
  it("has no source function over 120 lines", () => {
    const found: Array<{ file: string; line: number; name: string; lines: number }> = longFunctions(120, ROOT);
    expect(found.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });

  it("names every export of each package's root entry", () => {
    const packages = listPackages();
    expect(packages.length).toBeGreaterThan(8);
    const offenders: string[] = [];
    for (const pkg of packages) {
      const text = readFileSync(`${ROOT}${pkg}/src/index.ts`, "utf8");
      if (/^\s*export\s+\*\s+from/m.test(text)) offenders.push(`${pkg}/src/index.ts`);
    }
    expect(offenders).toEqual([]);
  });

  it("imports workspace packages only in the direction CONTRIBUTING.md §1 gives", () => {
    const { violations, files, workspaceImports } = directionViolations(ROOT) as {
      violations: string[];
      files: number;
      workspaceImports: number;
    };
    expect(violations).toEqual([]);
    // the scan read the sources (a wrong glob would pass with nothing read)
    expect(files).toBeGreaterThan(200);
    expect(workspaceImports).toBeGreaterThan(100);
    // every workspace package has a row
    const rows = Object.keys(DIRECTION);
    for (const pkg of ["packages", "adapters"].flatMap((d) => readdirSync(`${ROOT}${d}`).map((n) => `${d}/${n}`)))
      if (existsSync(`${ROOT}${pkg}/package.json`)) expect(rows, `${pkg} has no direction row`).toContain(pkg);
  });

  it("fails on an import against the direction, naming the file, the line and the rule", () => {
    const check = (file: string, text: string): string[] => violationsIn(file, text);
    expect(check("packages/core/src/x.ts", '// role\nimport { sqlJobStore } from "@mountkit/sql";\n')).toEqual([
      "packages/core/src/x.ts:2 imports @mountkit/sql: core imports no other workspace package (CONTRIBUTING.md §1)",
    ]);
    // a service importing another service, by any form of import
    const service = check(
      "packages/memory/src/x.ts",
      [
        'import type { SupportStore } from "@mountkit/support";',
        'export { x } from "@mountkit/entries/node";',
        'const m = await import("@mountkit/sql");',
        'type T = import("@mountkit/support").Issue;',
      ].join("\n"),
    );
    expect(service.map((v) => v.split(" ")[0])).toEqual([
      "packages/memory/src/x.ts:1",
      "packages/memory/src/x.ts:2",
      "packages/memory/src/x.ts:3",
      "packages/memory/src/x.ts:4",
    ]);
    expect(service[0]).toContain("a service (support, memory, entries) imports only @mountkit/core");
    // an adapter never imports a service; a page takes only the types of its service
    expect(check("adapters/express/src/x.ts", 'import { createSupportService } from "@mountkit/support";')[0]).toMatch(
      /^adapters\/express\/src\/x\.ts:1 .*never a service/,
    );
    expect(check("packages/entries-catalogue/src/x.ts", 'import { createEntriesApi } from "@mountkit/entries";')).toHaveLength(1);
    expect(check("packages/support-client/src/x.ts", 'import type { Issue } from "@mountkit/support";')).toHaveLength(1);
    // a relative path out of the package folder
    expect(check("packages/support/src/a/x.ts", 'import { db } from "../../../sql/src/db.js";')[0]).toMatch(
      /^packages\/support\/src\/a\/x\.ts:1 .*outside packages\/support/,
    );
    // a package without a row
    expect(check("packages/newcomer/src/x.ts", "")[0]).toContain("has no row in the direction table");
    // the edges the table allows pass
    expect(
      check(
        "packages/sql/src/x.ts",
        'import type { MemoryStore } from "@mountkit/memory";\nimport { sql } from "kysely";\nimport { x } from "../../sql/src/db.js";',
      ),
    ).toEqual([]);
    expect(check("packages/entries-catalogue/src/x.ts", 'import { type Entry, type EntryRevision } from "@mountkit/entries";')).toEqual([]);
    expect(check("packages/core/src/x.ts", 'import { outboundTransport } from "@mountkit/core/outbound";')).toEqual([]);
  });

  it("has no import cycle inside a package, type-only imports included", () => {
    expect(importCycles(ROOT)).toEqual([]);
  });

  it("finds a cycle through type-only imports, re-exports and the package's imports map", () => {
    const a = "packages/x/src/a.ts";
    const graph = new Map<string, string[]>([
      [a, importsOf(a, 'import type { B } from "./b.js";\nimport { c } from "./c.js";')],
      ["packages/x/src/b.ts", importsOf("packages/x/src/b.ts", 'export { a } from "./a.js";')],
      ["packages/x/src/c.ts", importsOf("packages/x/src/c.ts", 'import { r } from "#runtime";', { "#runtime": ["packages/x/src/r-node.ts"] })],
      ["packages/x/src/r-node.ts", importsOf("packages/x/src/r-node.ts", 'import type { C } from "./c.js";')],
      ["packages/x/src/d.ts", importsOf("packages/x/src/d.ts", 'import { a } from "./a.js";\nimport ts from "typescript";')],
    ]);
    expect(cyclesOf(graph)).toEqual([
      ["packages/x/src/a.ts", "packages/x/src/b.ts"],
      ["packages/x/src/c.ts", "packages/x/src/r-node.ts"],
    ]);
  });
});

/** Workspace packages with a root entry (`src/index.ts`); the page bundles without one have nothing to list. */
function listPackages(): string[] {
  return ["packages", "adapters"].flatMap((dir) =>
    readdirSync(`${ROOT}${dir}`)
      .map((name) => `${dir}/${name}`)
      .filter((pkg) => existsSync(`${ROOT}${pkg}/src/index.ts`)),
  );
}
