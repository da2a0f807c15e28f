// Line and column of the validation address's warnings and errors (issue #13): YAML and JSON sources, nested pointers,
// array items, CRLF, the `yaml` 2 fallback, parse errors; and, over the fail corpora, every position lands on its key.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SpecIssue } from "@mountkit/entries";
import { validateSpec } from "@mountkit/entries/node";
import { describe, expect, it } from "vitest";

const issuesOf = async (text: string) => {
  const { answer } = await validateSpec(text, { maxWarnings: 1000 });
  return answer.valid ? answer.warnings : answer.errors;
};

/** The text at a 1-based line and column (line breaks LF, CRLF, CR). */
function at(text: string, issue: SpecIssue, length = 12): string {
  const lines = text.split(/\r\n|\n|\r/);
  return lines[issue.line! - 1]!.slice(issue.column! - 1, issue.column! - 1 + length);
}

const YAML = `openapi: 3.0.3
info:
  title: T
  version: "1"
paths:
  /users/{id}:
    get:
      parameters:
        - name: id
          in: path
          required: true
          schema: {type: string}
        - "name": q
          in: querx
          schema: {type: string}
      responses:
        "200":
          description: ok
`;
const IN_POINTER = "/paths/~1users~1{id}/get/parameters/1/in";

describe("positions of warnings", () => {
  it("YAML: a nested pointer is placed at its key", async () => {
    const issues = await issuesOf(YAML);
    const w = issues.find((i) => i.path === IN_POINTER)!;
    expect(w).toMatchObject({ line: 14, column: 11 });
    expect(at(YAML, w)).toBe("in: querx");
  });

  it("JSON: the same document, pretty-printed and minified, is placed at the quoted key", async () => {
    const doc = (await import("js-yaml")).load(YAML) as object;
    const pretty = JSON.stringify(doc, null, 2);
    const w = (await issuesOf(pretty)).find((i) => i.path === IN_POINTER)!;
    expect(w.line).toBeGreaterThan(1);
    expect(at(pretty, w, 13)).toBe('"in": "querx"');
    const minified = JSON.stringify(doc);
    const m = (await issuesOf(minified)).find((i) => i.path === IN_POINTER)!;
    expect(m.line).toBe(1);
    expect(at(minified, m)).toBe('"in":"querx"');
  });

  it("an array item is placed at its first character; CRLF line ends count once", async () => {
    const text = `swagger: "2.0"\r\ninfo: {title: T, version: "1"}\r\npaths:\r\n  /u:\r\n    get:\r\n      parameters:\r\n        - {name: a, in: query, type: string}\r\n        - {name: a, in: query, type: string}\r\n      responses: {"200": {description: ok}}\r\n`;
    const dup = (await issuesOf(text)).find((i) => /duplicate parameter/.test(i.message))!;
    expect(dup.path).toBe("/paths/~1u/get/parameters/1");
    expect(dup).toMatchObject({ line: 8, column: 11 });
    expect(at(text, dup, 8)).toBe("{name: a");
  });

  it("YAML only `yaml` 2 reads (js-yaml refuses it) still gets positions", async () => {
    const text =
      'openapi: 3.0.3\ninfo: {title: T, version: "1"\n}\npaths:\n  /a:\n    get:\n      parameters:\n        - name: q\n          in: querx\n      responses:\n        "200": {description: ok}\n';
    const w = (await issuesOf(text)).find((i) => i.path === "/paths/~1a/get/parameters/0/in")!;
    expect(w).toMatchObject({ line: 9, column: 11 });
  });

  it("an error about a field that is there is placed; one about a missing field has no position", async () => {
    const text = 'swagger: "1.2"\ninfo:\n  version: "1"\npaths: {}\n';
    const errors = await issuesOf(text);
    expect(errors.find((e) => e.path === "/swagger")).toMatchObject({ line: 1, column: 1 });
    const title = errors.find((e) => e.path === "/info/title")!;
    expect(title.line).toBeUndefined();
    expect(title.column).toBeUndefined();
  });

  it("a YAML syntax error carries the parser's line and column", async () => {
    const [e] = await issuesOf("openapi: 3.0.3\ninfo: [\n  a: b: c\n");
    expect(e).toMatchObject({ path: "", line: 3, column: 7 });
  });

  it("a JSON syntax error carries its line and column", async () => {
    const [e] = await issuesOf('{"openapi": "3.0.3",\n "info": {,}\n}');
    expect(e!.message).toMatch(/^not valid JSON/);
    expect(e).toMatchObject({ path: "", line: 2, column: 11 });
  });

  it("a valid document reports nothing, so nothing is located", async () => {
    const { answer } = await validateSpec(YAML.replace("querx", "query"));
    expect(answer).toMatchObject({ valid: true, warningCount: 0, warnings: [] });
  });
});

const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const corpora = join(process.env.MOUNTKIT_SHARED_DIR ?? join(repoRoot, "..", "shared"), "fixtures", "openapi");

// the corpora are the shared fixtures beside the clone: CI has them, so there their absence is an error
const corporaMissing = existsSync(corpora) ? null : `${corpora} is missing`;
if (corporaMissing && process.env.CI === "true") throw new Error(`positions.test.ts: ${corporaMissing}: CI has shared/ beside the clone`);
if (corporaMissing) console.log(`[mountkit] skipping positions over the fail corpora: ${corporaMissing}`);

describe.skipIf(corporaMissing !== null)(`positions over the fail corpora${corporaMissing ? ` (skipped: ${corporaMissing})` : ""}`, () => {
  it("every located issue sits on its key (object member) or inside the text (array item)", async () => {
    let located = 0;
    let unlocated = 0;
    const wrong: string[] = [];
    for (const set of readdirSync(corpora)) {
      const dir = join(corpora, set, "fail");
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir)) {
        const text = readFileSync(join(dir, f), "utf8");
        for (const issue of await issuesOf(text)) {
          if (issue.line === undefined) {
            if (issue.path) unlocated++;
            continue;
          }
          located++;
          const last = issue.path
            .slice(issue.path.lastIndexOf("/") + 1)
            .replace(/~1/g, "/")
            .replace(/~0/g, "~");
          const there = at(text, issue, last.length + 2);
          const isIndex = /^\d+$/.test(last);
          const onKey = there.startsWith(last) || there.startsWith(`"${last}"`) || there.startsWith(`'${last}'`);
          if (issue.path && !isIndex && !onKey)
            wrong.push(`${set}/fail/${f} ${issue.path} -> ${issue.line}:${issue.column} ${JSON.stringify(there)}`);
        }
      }
    }
    console.log(`issues located: ${located}; with a pointer but no position: ${unlocated}`);
    expect(wrong).toEqual([]);
    expect(located).toBeGreaterThan(40);
  }, 60_000);
});

describe("one warning per defect", () => {
  it("a 3.0 parameter with neither `schema` nor `content` gets one warning naming both (and `$ref`), not one per branch", async () => {
    const issues = await issuesOf(YAML.replace("          schema: {type: string}\n      responses", "      responses"));
    const here = issues.filter((i) => i.path === "/paths/~1users~1{id}/get/parameters/1");
    expect(here).toHaveLength(1);
    expect(here[0]!.message).toMatch(/`schema`.*`content`.*`\$ref`.*none is present/);
    expect(here[0]).toMatchObject({ line: 13, column: 11 });
  });
});
