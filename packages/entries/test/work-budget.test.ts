// Work budgets on untrusted OpenAPI documents (issue #24): pointers through `$ref`s resolved once each, every hostile
// shape answered promptly, the inline path's step budget handing a document that needs more to a validation process,
// and the host's event loop never held while it happens (a loop-delay probe with a generous threshold).
import { specPool, validateSpec } from "@mountkit/entries/node";
import { afterAll, describe, expect, it } from "vitest";
import { watchLoop } from "../../../test/loop-delay.js";
import { DEFAULT_INLINE_MAX_STEPS, stepBudget } from "../src/openapi/limits.js";
import { pointerResolver, resolvePointer } from "../src/openapi/refs.js";
import { allOfBomb, parameterBomb, refChainBomb, schemaErrorBomb, uniqueItemsBomb } from "./fixtures/hostile-specs.js";

/** Worst event-loop delay the validation of a hostile document may cause: generous, a stall is seconds. */
const LOOP_DELAY_LIMIT_MS = 250;

/**
 * Each shape with the wall time it may take: seconds where the work was exponential (minutes before), the issue's
 * 15 s where the JSON Schema validator's own pairwise `uniqueItems` check, quadratic and not ours to change, runs in a
 * validation process. Those are sized at 24 KB, well past the inline budget (the 60 KB sizes take 1 to 7 s in a
 * process niced by 10, far more when the test machine's cores are taken by other suites).
 */
const hostile: Array<[string, string, number]> = [
  ["a 900-byte $ref-through-$ref pointer chain", refChainBomb(), 5_000],
  ["the same chain at the old hop limit (16 levels)", refChainBomb(16, 4), 5_000],
  ["an allOf fan-out 16 levels deep", allOfBomb(), 5_000],
  ["600 path placeholders against 600 parameters", parameterBomb(24_000), 15_000],
  ["1,500 distinct tags (uniqueItems compares pairs)", uniqueItemsBomb(24_000), 15_000],
  ["800 parameters breaking the specification alike (8,800 schema errors)", schemaErrorBomb(24_000), 15_000],
];

describe("pointer resolution", () => {
  it("resolves a pointer that runs through $refs, and remembers it", () => {
    const doc = {
      components: { schemas: { A: { properties: { b: { $ref: "#/components/schemas/B" } } }, B: { items: { type: "string" } } } },
    };
    const budget = stepBudget();
    const resolve = pointerResolver(doc, budget);
    expect(resolve("#/components/schemas/A/properties/b/items")).toEqual({ type: "string" });
    const spent = budget.used;
    expect(resolve("#/components/schemas/A/properties/b/items")).toEqual({ type: "string" });
    expect(budget.used).toBe(spent);
    expect(resolve("#/components/schemas/A/properties/c")).toBeUndefined();
    expect(resolvePointer(doc, "#/components/schemas/B/items/type")).toBe("string");
    expect(resolvePointer(doc, "#/components/schemas/%41")).toBe(doc.components.schemas.A);
    expect(resolvePointer(doc, "#")).toBe(doc);
    expect(resolvePointer(doc, "#components")).toBeUndefined();
  });

  it("a cycle of pointers through one another resolves to nothing, and ends", () => {
    const doc = { a: { $ref: "#/b/x" }, b: { $ref: "#/a/x" }, c: { $ref: "#/c/y" } };
    expect(resolvePointer(doc, "#/a/x")).toBeUndefined();
    expect(resolvePointer(doc, "#/c/y/z")).toBeUndefined();
  });

  it("the chain bomb costs steps linear in its size: each pointer is followed once", () => {
    for (const levels of [8, 16, 64]) {
      const doc = JSON.parse(refChainBomb(levels, 4));
      const budget = stepBudget();
      const target = pointerResolver(doc, budget)(`#/components/schemas/G${levels}/G1`);
      expect(target).toEqual(doc.components.schemas.G1);
      // 4 repeats + 4 fixed tokens per level, each token once
      expect(budget.used).toBeLessThan(12 * (levels + 2));
    }
  });

  it("a chain longer than the stack is resolved without recursion", () => {
    // S<i> points at S<i-1>'s `x`, which runs through S<i-1> itself: resolving S<n>'s `x` follows n pointers, each
    // inside the one before, down to S0, which nests `x` n + 1 deep
    const n = 20_000;
    let bottom: Record<string, unknown> = { end: true };
    for (let i = 0; i <= n; i++) bottom = { x: bottom };
    const schemas: Record<string, unknown> = { S0: bottom };
    for (let i = 1; i <= n; i++) schemas[`S${i}`] = { $ref: `#/schemas/S${i - 1}/x` };
    expect(resolvePointer({ schemas }, `#/schemas/S${n}/x/end`)).toBe(true);
    expect(resolvePointer({ schemas }, `#/schemas/S${n}/x/x`)).toBeUndefined();
  });
});

describe("hostile documents answered promptly", () => {
  for (const [name, text, maxMs] of hostile)
    it(`${name} (validateSpec, no budget): judged within ${maxMs / 1000} s`, async () => {
      expect(text.length).toBeLessThan(64 * 1024);
      const t0 = performance.now();
      const { answer } = await validateSpec(text);
      expect(performance.now() - t0).toBeLessThan(maxMs);
      expect(answer.valid).toBe(true);
    }, 60_000);

  it("the chain bomb's references are all checked, and resolve", async () => {
    const { answer } = await validateSpec(refChainBomb());
    expect(answer).toMatchObject({ valid: true, warningCount: 0 });
  });

  it("maxSteps answers a document that needs more work invalid, naming the limit", async () => {
    const { answer } = await validateSpec(uniqueItemsBomb(), { maxSteps: 10_000 });
    expect(answer).toEqual({
      valid: false,
      errors: [{ path: "", message: "too complex: checking the document needed more than 10000 steps (limit maxSteps 10000)" }],
    });
    expect((await validateSpec(refChainBomb(), { maxSteps: 10_000 })).answer.valid).toBe(true);
  });
});

describe("the inline path's step budget", () => {
  const pool = specPool();
  // the inline path a host opts into (inlineBelowBytes), with no processes to hand a document to
  const inlineOnly = specPool({ maxThreads: 0, inlineBelowBytes: 64 * 1024 });
  afterAll(() => Promise.all([pool.destroy(), inlineOnly.destroy()]));

  it("defaults to DEFAULT_INLINE_MAX_STEPS, and a host can set it", () => {
    expect(pool.options.inlineMaxSteps).toBe(DEFAULT_INLINE_MAX_STEPS);
    expect(specPool({ inlineMaxSteps: 7 }).options.inlineMaxSteps).toBe(7);
  });

  it("warm-up: the validation process starts (its first start bundles the worker from sources)", async () => {
    const anchored = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\nx-a: &a 1\nx-b: *a\n";
    expect((await pool.validate(Buffer.from(anchored))).answer.valid).toBe(true);
  }, 60_000);

  for (const [name, text, maxMs] of hostile)
    it(`${name}: answered within ${maxMs / 1000} s, the event loop never held past ${LOOP_DELAY_LIMIT_MS} ms`, async () => {
      const { result, wallMs, worstDelayMs } = await watchLoop(() => pool.validate(Buffer.from(text)));
      expect(result.answer.valid).toBe(true);
      expect(wallMs).toBeLessThan(maxMs);
      expect(worstDelayMs).toBeLessThan(LOOP_DELAY_LIMIT_MS);
    }, 60_000);

  it("without validation processes, a document past the budget answers 422 naming inlineMaxSteps", async () => {
    const { result, worstDelayMs } = await watchLoop(() => inlineOnly.validate(Buffer.from(uniqueItemsBomb())));
    expect(result.answer).toEqual({
      valid: false,
      errors: [
        {
          path: "",
          message: `too complex: checking the document needed more than ${DEFAULT_INLINE_MAX_STEPS} steps (limit inlineMaxSteps ${DEFAULT_INLINE_MAX_STEPS})`,
        },
      ],
    });
    expect(worstDelayMs).toBeLessThan(LOOP_DELAY_LIMIT_MS);
    // within the budget, the same pool judges inline
    expect((await inlineOnly.validate(Buffer.from(refChainBomb()))).answer.valid).toBe(true);
    // and one it may not judge inline is not judged, rather than waiting for a process that never comes
    await expect(inlineOnly.validate(Buffer.alloc(70 * 1024, 32))).rejects.toThrow(/maxThreads 0/);
  });
});
