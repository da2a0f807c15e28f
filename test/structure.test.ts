// The shape the code keeps (CONTRIBUTING.md): no source function over 120 lines, and every package's root
// entry names its exports (no `export *`), so what a package offers is a list a reader can see.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { longFunctions } from "../scripts/function-lengths.mjs";

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
});

/** Workspace packages with a root entry (`src/index.ts`); the page bundles without one have nothing to list. */
function listPackages(): string[] {
  return ["packages", "adapters"].flatMap((dir) =>
    readdirSync(`${ROOT}${dir}`)
      .map((name) => `${dir}/${name}`)
      .filter((pkg) => existsSync(`${ROOT}${pkg}/src/index.ts`)),
  );
}
