// Resource limits and version reading of the validation address's parser: YAML alias bombs, deep nesting, numeric versions.
import { describe, expect, it } from "vitest";
import { parseSpec } from "@mountkit/entries";
import { validateSpec } from "@mountkit/entries/node";
import { aliasBomb, deepJsonSpec } from "./fixtures/hostile-specs.js";

const errorsOf = async (text: string) => {
  const r = await validateSpec(text);
  return r.answer.valid ? [] : r.answer.errors;
};

describe("resource limits", () => {
  it("a YAML alias bomb answers invalid at once, naming the alias limit", async () => {
    const t0 = performance.now();
    const errors = await errorsOf(aliasBomb());
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^too aliased: .*maxAliasedNodes/);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
  it("more alias nodes than maxAliases is refused by name", () => {
    const r = parseSpec(aliasBomb(2, 20), { limits: { maxDepth: 256, maxAliases: 10, maxAliasedNodes: 1_000_000 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toMatch(/^too aliased: .*maxAliases 10/);
  });
  it("a few aliases that expand a little are fine", async () => {
    const r = await validateSpec(aliasBomb(2, 3));
    expect(r.answer.valid).toBe(true);
  });
  it("a cyclic alias is refused, not walked forever", async () => {
    const errors = await errorsOf(
      "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: &a {get: {responses: {}}, x-self: [*a]}\n",
    );
    expect(errors[0]!.message).toMatch(/too aliased: .*cycle/);
  });
  it("a 5,000-deep schema answers invalid naming the depth limit (JSON and YAML), not a stack overflow", async () => {
    const json = await errorsOf(deepJsonSpec(5000));
    expect(json[0]!.message).toMatch(/^too deep: .*maxDepth 256/);
    expect(json[0]!.path.startsWith("/components/schemas/d/properties/a")).toBe(true);
    let flow = "x";
    for (let i = 0; i < 5000; i++) flow = `{a: ${flow}}`;
    const yaml = await errorsOf(`openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\nx-deep: ${flow}\n`);
    expect(yaml[0]!.message).toMatch(/^too deep: /);
  });
  it("a document within the depth limit validates", async () => {
    expect((await validateSpec(deepJsonSpec(60))).answer.valid).toBe(true);
  });
});

describe("reading what common YAML parsers accept", () => {
  it("a flow mapping closed at its parent key's indentation (js-yaml 5 refuses it, yaml 2 and PyYAML accept it)", async () => {
    const text =
      "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: {\n      responses: {'200': {description: ok}}\n    }\n";
    const r = await validateSpec(text);
    expect(r.answer).toMatchObject({ valid: true, endpoints: 1, warningCount: 0 });
  });
  it("`openapi: 3.0` and `swagger: 2.0` as YAML numbers are read as versions, with one warning each", async () => {
    const oa = await validateSpec("openapi: 3.0\ninfo: {title: t, version: '1'}\npaths: {}\n");
    expect(oa.answer).toMatchObject({ valid: true, openapi: "3.0" });
    const sw = await validateSpec("swagger: 2.0\ninfo: {title: t, version: '1'}\npaths: {}\n");
    expect(sw.answer).toMatchObject({ valid: true, openapi: "2.0" });
    for (const a of [oa.answer, sw.answer]) if (a.valid) expect(a.warnings.map((w) => w.message).join("\n")).toMatch(/should be a string/);
  });
  it("3.1 needs one of paths, webhooks, components; an empty title is a warning", async () => {
    const hooks = await validateSpec(JSON.stringify({ openapi: "3.1.0", info: { title: "", version: "1" }, webhooks: {} }));
    expect(hooks.answer).toMatchObject({ valid: true, endpoints: 0 });
    if (hooks.answer.valid) expect(hooks.answer.warnings.map((w) => w.path)).toEqual(["/info/title"]);
    const none = await errorsOf(JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" } }));
    expect(none[0]!.message).toMatch(/`paths`, `webhooks` or `components`/);
  });
});
