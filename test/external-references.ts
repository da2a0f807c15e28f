// References to specification documents that live outside the repository (a contract file, "seed" documents, a
// `shared` folder beside the clone): users never get them, so the repository and its tarballs must not point at
// them. The reference pages under docs/ are where such a pointer goes instead. Used by test/docs.test.ts (every
// file of the working tree) and test/packaging/run.ts (every packed tarball).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

// Built from pieces so this file does not match itself.
const C = "CONTRACT";
const S = "seed";
const PATTERNS: Array<{ name: string; re: RegExp }> = [
  { name: "the contract file", re: new RegExp(`\\b${C}(?:\\.md|\\s*§)`) },
  { name: "a document in the shared folder", re: /\.\.\/shared\/|(?<![\w.-])shared\/(?:seeds|fixtures|bench)\b/ },
  { name: "a numbered specification file", re: new RegExp(`\\b${S}s?\\s+0\\d\\d\\b`, "i") },
  // the specification documents, never a random generator's seed (which this wording does not describe)
  {
    name: "the specification files by name",
    re: new RegExp(`\\bthe ${S}s?\\b|\\b${S}(?:'s|s/|\\s+(?:inventor|listing|table|document)|\\s+")`, "i"),
  },
];

export interface ExternalReference {
  file: string;
  line: number;
  text: string;
  kind: string;
}

/** Every line of `text` that refers to a document outside the repository. */
export function externalReferences(file: string, text: string): ExternalReference[] {
  const out: ExternalReference[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    for (const p of PATTERNS)
      if (p.re.test(line)) {
        out.push({ file, line: i + 1, text: line.trim().slice(0, 160), kind: p.name });
        break;
      }
  }
  return out;
}

const SKIP_DIRS = new Set(["node_modules", "dist", ".git", "data", "coverage", ".tmp"]);
const BINARY = /\.(?:png|jpe?g|gif|webp|ico|woff2?|ttf|sqlite|db|gz|tgz|zip|wasm|node)$/i;

/** Text files under `root`, relative paths, skipping installed and built folders and anything binary or huge. */
export function textFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...textFiles(root, full));
    } else if (entry.isFile() && !BINARY.test(entry.name) && statSync(full).size < 8 * 1024 * 1024) {
      out.push(relative(root, full));
    }
  }
  return out;
}

/** The references found in every text file under `root`. */
export function scanTree(root: string): ExternalReference[] {
  const found: ExternalReference[] = [];
  for (const file of textFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    if (text.includes("\0")) continue;
    found.push(...externalReferences(file, text));
  }
  return found;
}
