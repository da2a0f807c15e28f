// Line and column (1-based) of JSON pointers in a document's source text, computed only when there is something to
// report: one scan of the text (jsonc-parser's visitor for JSON, js-yaml's event parser for YAML) that tracks only the
// branches leading to a wanted pointer, so the common path (nothing to report) never pays for positions.
import { type Event, getScalarValue, parseEvents, type ScalarEvent } from "js-yaml";
import { visit } from "jsonc-parser";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import type { SpecFormat, SpecIssue } from "./spec-types.js";

export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * Texts longer than this get no positions: the scan is one more pass over the text (about the cost of parsing it
 * again), bounded here so a huge document does not pay twice. YAML that only the `yaml` 2 fallback parser reads is
 * scanned by that parser, about ten times slower, hence its lower bound.
 */
export const POSITIONS_MAX_CHARS = 32 * 1024 * 1024;
export const POSITIONS_FALLBACK_MAX_CHARS = 1024 * 1024;

/** Pointer tokens as a tree: only these branches of the document are followed. */
interface Want {
  pointer?: string;
  children?: Map<string, Want>;
}

const unescapeToken = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");

function wantTree(pointers: Iterable<string>): { root: Want; count: number } {
  const root: Want = {};
  let count = 0;
  for (const pointer of pointers) {
    // the whole document needs no position; a pointer must start with `/`
    if (!pointer.startsWith("/")) continue;
    let node = root;
    for (const raw of pointer.slice(1).split("/")) {
      const token = unescapeToken(raw);
      node.children ??= new Map();
      let next = node.children.get(token);
      if (!next) node.children.set(token, (next = {}));
      node = next;
    }
    if (node.pointer === undefined) count++;
    node.pointer = pointer;
  }
  return { root, count };
}

/** 1-based line and column of each offset: one pass over the text up to the last offset. Breaks: LF, CRLF, CR. */
export function offsetsToPositions(text: string, offsets: Map<string, number>): Map<string, SourcePosition> {
  const sorted = [...offsets].sort((a, b) => a[1] - b[1]);
  const out = new Map<string, SourcePosition>();
  let line = 1;
  let lineStart = 0;
  let i = 0;
  for (const [pointer, offset] of sorted) {
    for (; i < offset; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        line++;
        lineStart = i + 1;
      }
    }
    out.set(pointer, { line, column: offset - lineStart + 1 });
  }
  return out;
}

interface Frame {
  want?: Want;
  seq: boolean;
  index: number;
  expectKey: boolean;
  valueWant?: Want;
}

const MAPPING = 3;
const SEQUENCE = 2;
const SCALAR = 4;
const ALIAS = 5;
const POP = 6;
const DOCUMENT = 1;

/** Where a node's text starts: its anchor (`&a`), its tag, or its value (a quoted scalar at its opening quote). */
function startOf(e: Event): number {
  let start = Number.POSITIVE_INFINITY;
  if (e.type === MAPPING || e.type === SEQUENCE) start = e.start;
  else if (e.type === SCALAR) {
    // quoted styles (2 single, 3 double) start one character before their content; an empty scalar has no text
    if (e.valueStart >= 0) start = e.style === 2 || e.style === 3 ? e.valueStart - 1 : e.valueStart;
  }
  if (e.type !== POP && e.type !== DOCUMENT) {
    if (e.anchorStart >= 0) start = Math.min(start, e.anchorStart - 1);
    if (e.type !== ALIAS && e.tagStart >= 0) start = Math.min(start, e.tagStart);
  }
  return Number.isFinite(start) ? start : -1;
}

/**
 * YAML through js-yaml's event stream (the same parser that read the document). Members of a mapping are placed at
 * their key, sequence items at their first character. Pointers that pass through an alias get no position.
 */
function yamlOffsets(text: string, root: Want, count: number, maxDepth: number): Map<string, number> {
  const events = parseEvents(text, { maxDepth });
  const found = new Map<string, number>();
  const stack: Frame[] = [];
  let documents = 0;
  const record = (want: Want | undefined, e: Event) => {
    if (want?.pointer === undefined || found.has(want.pointer)) return;
    const at = startOf(e);
    if (at >= 0) found.set(want.pointer, at);
  };
  for (const e of events) {
    if (found.size >= count) break;
    if (e.type === DOCUMENT) {
      if (++documents > 1) break;
      continue;
    }
    if (e.type === POP) {
      stack.pop();
      continue;
    }
    const top = stack[stack.length - 1];
    let want: Want | undefined;
    if (!top) want = root;
    else if (top.seq) {
      want = top.want?.children?.get(String(top.index++));
      record(want, e);
    } else if (top.expectKey) {
      top.expectKey = false;
      // only keys on a wanted branch are decoded
      top.valueWant = top.want?.children && e.type === SCALAR ? top.want.children.get(getScalarValue(text, e as ScalarEvent)) : undefined;
      record(top.valueWant, e);
      want = undefined;
    } else {
      top.expectKey = true;
      want = top.valueWant;
    }
    if (e.type === MAPPING || e.type === SEQUENCE) stack.push({ want, seq: e.type === SEQUENCE, index: 0, expectKey: true });
  }
  return found;
}

/** YAML that js-yaml refuses and `yaml` 2 reads: the same walk over `yaml`'s node tree, with its ranges. */
function yamlFallbackPositions(text: string, pointers: string[]): Map<string, SourcePosition> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, keepSourceTokens: false });
  const out = new Map<string, SourcePosition>();
  for (const pointer of pointers) {
    if (!pointer.startsWith("/")) continue;
    let node: unknown = doc.contents;
    let offset: number | undefined;
    for (const raw of pointer.slice(1).split("/")) {
      const token = unescapeToken(raw);
      offset = undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === token);
        offset = (pair?.key as YamlNode | undefined)?.range?.[0];
        node = pair?.value;
      } else if (isSeq(node)) {
        node = node.items[Number(token)];
        offset = (node as YamlNode | undefined)?.range?.[0];
      } else node = undefined;
      if (node === undefined && offset === undefined) break;
    }
    if (offset !== undefined) {
      const { line, col } = lineCounter.linePos(offset);
      out.set(pointer, { line, column: col });
    }
  }
  return out;
}

/** JSON through jsonc-parser's visitor, which reports lines and columns itself. */
function jsonPositions(text: string, root: Want, count: number): Map<string, SourcePosition> {
  const found = new Map<string, SourcePosition>();
  const stack: Frame[] = [];
  const record = (want: Want | undefined, line: number, character: number) => {
    if (want?.pointer !== undefined && !found.has(want.pointer)) found.set(want.pointer, { line: line + 1, column: character + 1 });
  };
  /** The wanted subtree a value starting here belongs to (and its position, when it is an array item). */
  const valueWant = (line: number, character: number): Want | undefined => {
    const top = stack[stack.length - 1];
    if (!top) return root;
    // everything found: the rest of the text is only scanned through (the visitor cannot stop early)
    if (found.size >= count) return undefined;
    if (!top.seq) return top.valueWant;
    const want = top.want?.children?.get(String(top.index++));
    record(want, line, character);
    return want;
  };
  // Every container gets a frame, wanted or not: skipping subtrees (a `false` from a begin callback) would still
  // deliver the skipped container's end callback in jsonc-parser 3, an unsteady contract to build a stack on.
  const begin = (seq: boolean) => (_offset: number, _length: number, line: number, character: number) => {
    stack.push({ want: valueWant(line, character), seq, index: 0, expectKey: false });
  };
  visit(
    text,
    {
      onObjectBegin: begin(false),
      onArrayBegin: begin(true),
      onObjectEnd: () => void stack.pop(),
      onArrayEnd: () => void stack.pop(),
      onObjectProperty(name, _offset, _length, line, character) {
        const top = stack[stack.length - 1]!;
        top.valueWant = top.want?.children?.get(name);
        record(top.valueWant, line, character);
      },
      onLiteralValue(_value, _offset, _length, line, character) {
        valueWant(line, character);
      },
    },
    { disallowComments: true },
  );
  return found;
}

/**
 * Positions of the given pointers in `text`, for those the source holds; empty when the text cannot be scanned
 * (too long, too deep for a recursive scanner) — positions are a help, never a reason to fail.
 */
export function locatePointers(text: string, format: SpecFormat, pointers: string[], maxDepth: number): Map<string, SourcePosition> {
  const { root, count } = wantTree(pointers);
  if (count === 0 || text.length > POSITIONS_MAX_CHARS) return new Map();
  try {
    if (format === "json") return jsonPositions(text, root, count);
    try {
      return offsetsToPositions(text, yamlOffsets(text, root, count, maxDepth));
    } catch {
      return text.length <= POSITIONS_FALLBACK_MAX_CHARS ? yamlFallbackPositions(text, pointers) : new Map();
    }
  } catch {
    return new Map();
  }
}

/** Adds `line` and `column` to each issue whose pointer the source holds. */
export function withPositions(issues: SpecIssue[], text: string, format: SpecFormat, maxDepth: number): SpecIssue[] {
  if (!issues.length) return issues;
  const at = locatePointers(
    text,
    format,
    issues.map((i) => i.path),
    maxDepth,
  );
  if (!at.size) return issues;
  return issues.map((i) => {
    const p = at.get(i.path);
    return p ? { ...i, line: p.line, column: p.column } : i;
  });
}

/** Where a JSON text first breaks the grammar (JSON.parse's own message does not say so on every Node version). */
export function jsonErrorPosition(text: string): SourcePosition | undefined {
  let first: SourcePosition | undefined;
  try {
    visit(
      text,
      {
        onError(_code, _offset, _length, line, character) {
          first ??= { line: line + 1, column: character + 1 };
        },
      },
      { disallowComments: true },
    );
  } catch {
    return first;
  }
  return first;
}
