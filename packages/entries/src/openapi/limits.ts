// Resource limits on untrusted documents: nesting depth and YAML alias expansion, checked in one walk before any
// recursive consumer (JSON Schema validation, $ref resolution, cataloguing) sees the document (issue #10).

import { escapeToken, pointerOf, type Trail } from "./pointer.js";
import type { SpecIssue } from "./spec-types.js";

export interface SpecLimits {
  /** Deepest nesting of objects and arrays, aliases followed; default 256. */
  maxDepth: number;
  /** Alias nodes (`*name`) a YAML document may hold; default 10,000. */
  maxAliases: number;
  /** Nodes YAML aliases may add to the document once expanded (a "billion laughs" grows by millions); default 1,000,000. */
  maxAliasedNodes: number;
}

export const DEFAULT_SPEC_LIMITS: SpecLimits = { maxDepth: 256, maxAliases: 10_000, maxAliasedNodes: 1_000_000 };

/** Names the limit hit, as docs/entries.md#the-validation-address says ("too deep", "too aliased", "too slow"). */
export const limitMessages = {
  depth: (max: number) => `too deep: the document nests more than ${max} levels (limit maxDepth ${max})`,
  aliases: (max: number) => `too aliased: the YAML document uses more than ${max} aliases (limit maxAliases ${max})`,
  expansion: (max: number) => `too aliased: YAML aliases expand the document by more than ${max} nodes (limit maxAliasedNodes ${max})`,
  cycle: () => "too aliased: a YAML alias refers to a node that contains it (a cycle)",
  time: (ms: number) => `too slow: the document took longer than ${ms} ms to process (limit timeoutMs ${ms})`,
  memory: (mb: number) => `too large: processing the document needed more than ${mb} MB of memory (limit maxMemoryMb ${mb})`,
  steps: (max: number, name = "maxSteps") => `too complex: checking the document needed more than ${max} steps (limit ${name} ${max})`,
};

/**
 * Steps of work a validation may take before it stops (issue #24). The walks over a document (reference resolution,
 * semantic checks, the explanation of schema errors) spend one step per node, token or comparison, and the JSON
 * Schema validator, which cannot count, is charged beforehand for what it will do (see `schemaCost`). Past the
 * maximum, `spend` throws StepBudgetExceeded: the inline path then hands the document to a validation process.
 */
export interface StepBudget {
  spend(steps?: number): void;
  /** Steps spent so far. */
  readonly used: number;
  readonly max: number;
}

/** A validation ran out of steps; the document was not judged. */
export class StepBudgetExceeded extends Error {
  constructor(readonly max: number) {
    super(limitMessages.steps(max));
    this.name = "StepBudgetExceeded";
  }
}

/** A budget of `max` steps; without a maximum it only counts. */
export function stepBudget(max = Number.POSITIVE_INFINITY): StepBudget {
  let used = 0;
  return {
    spend(steps = 1) {
      used += steps;
      if (used > max) throw new StepBudgetExceeded(max);
    },
    get used() {
      return used;
    },
    max,
  };
}

/**
 * Steps the inline path grants a document below `inlineBelowBytes` (SpecPoolOptions.inlineMaxSteps). A 60 KB
 * generated spec takes about a tenth of them; a document that needs more goes to a validation process.
 */
export const DEFAULT_INLINE_MAX_STEPS = 50_000;

const isContainer = (v: unknown): v is object => typeof v === "object" && v !== null;

function children(node: object): Array<[string, unknown]> {
  return Array.isArray(node) ? node.map((v, i) => [String(i), v]) : Object.entries(node);
}

/**
 * Depth of a parsed tree (JSON, or YAML without anchors): iterative, so a 100,000-deep document cannot overflow the
 * stack here, and stops at the first node past the limit.
 */
function checkTree(root: unknown, maxDepth: number): SpecIssue | undefined {
  // the pointer is spelled only for the node past the limit (see pointer.ts)
  const stack: Array<[unknown, number, Trail | undefined]> = [[root, 1, undefined]];
  while (stack.length) {
    const [node, depth, trail] = stack.pop()!;
    if (!isContainer(node)) continue;
    if (depth > maxDepth) return { path: pointerOf(trail), message: limitMessages.depth(maxDepth) };
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) if (isContainer(node[i])) stack.push([node[i], depth + 1, { parent: trail, key: i }]);
    } else
      for (const key in node) {
        const v = (node as Record<string, unknown>)[key];
        if (isContainer(v)) stack.push([v, depth + 1, { parent: trail, key }]);
      }
  }
  return undefined;
}

interface Frame {
  node: object;
  at: string;
  entries: Array<[string, unknown]>;
  next: number;
  size: number;
  height: number;
}

/**
 * For YAML with anchors, where one object can hang under many parents: the expanded size and depth are computed once
 * per distinct object (post-order, memoised), so a billion-laughs document is measured in time linear in its text.
 */
function checkGraph(root: unknown, limits: SpecLimits): SpecIssue | undefined {
  if (!isContainer(root)) return undefined;
  const measured = new Map<object, { size: number; height: number }>();
  const onPath = new Set<object>();
  let unique = 0;
  let expanded = 0;
  const open = (node: object, at: string): Frame => {
    onPath.add(node);
    unique++;
    return { node, at, entries: children(node), next: 0, size: 1, height: 1 };
  };
  const stack: Frame[] = [open(root, "")];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (stack.length > limits.maxDepth) return { path: top.at, message: limitMessages.depth(limits.maxDepth) };
    if (top.next < top.entries.length) {
      const [key, child] = top.entries[top.next++]!;
      if (!isContainer(child)) {
        top.size++;
        continue;
      }
      const known = measured.get(child);
      if (known) {
        top.size += known.size;
        top.height = Math.max(top.height, known.height + 1);
        if (stack.length + known.height > limits.maxDepth)
          return { path: `${top.at}/${escapeToken(key)}`, message: limitMessages.depth(limits.maxDepth) };
        continue;
      }
      if (onPath.has(child)) return { path: `${top.at}/${escapeToken(key)}`, message: limitMessages.cycle() };
      stack.push(open(child, `${top.at}/${escapeToken(key)}`));
      continue;
    }
    stack.pop();
    onPath.delete(top.node);
    measured.set(top.node, { size: top.size, height: top.height });
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.size += top.size;
      parent.height = Math.max(parent.height, top.height + 1);
    } else expanded = top.size;
    if (top.size - unique > limits.maxAliasedNodes) return { path: top.at, message: limitMessages.expansion(limits.maxAliasedNodes) };
  }
  return expanded - unique > limits.maxAliasedNodes ? { path: "", message: limitMessages.expansion(limits.maxAliasedNodes) } : undefined;
}

/** The first limit a parsed document breaks, if any. `shared`: the parser may have shared nodes (YAML anchors). */
export function checkLimits(root: unknown, shared: boolean, limits: SpecLimits = DEFAULT_SPEC_LIMITS): SpecIssue | undefined {
  return shared ? checkGraph(root, limits) : checkTree(root, limits.maxDepth);
}

/** Whether YAML text may define an anchor (`&name` in node position); when not, no node can be shared. */
export function mayHaveAnchors(text: string): boolean {
  // `&` is rare in specs: jumping from one to the next (indexOf) beats a regex scan of every character of a
  // multi-MB text; each is then tested as the regex did: after a line start, blank or indicator, before a name
  for (let i = text.indexOf("&"); i >= 0; i = text.indexOf("&", i + 1)) {
    const before = i === 0 ? "\n" : text[i - 1]!;
    const after = text[i + 1];
    if (after !== undefined && /[\s[{,:?-]/.test(before) && !/[\s,[\]{}]/.test(after)) return true;
  }
  return false;
}
