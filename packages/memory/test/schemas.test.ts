// Wire schemas on their own: the metadata checks must answer an issue, never throw, whatever the core let through.
import { describe, expect, it } from "vitest";
import { CreateEpisodeBody, MAX_METADATA_DEPTH } from "../src/routes/schemas.js";

function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
}

describe("CreateEpisodeBody metadata", () => {
  it("refuses metadata nested far too deep to serialise, as an issue on metadata", () => {
    const deep = nested(30_000, (v) => ({ a: v }));
    const r = CreateEpisodeBody.safeParse({ content: "ok", metadata: deep });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["metadata"]);
  });

  it("refuses deep arrays that fit in the size limit", () => {
    const r = CreateEpisodeBody.safeParse({ content: "ok", metadata: { a: nested(8000, (v) => [v]) } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["metadata"]);
  });

  it("accepts metadata exactly MAX_METADATA_DEPTH levels deep, refuses one more", () => {
    // nested(n) builds n levels of objects, the outermost being the metadata object itself
    const at = nested(MAX_METADATA_DEPTH, (v) => ({ a: v }));
    expect(CreateEpisodeBody.safeParse({ content: "ok", metadata: at }).success).toBe(true);
    const over = nested(MAX_METADATA_DEPTH + 1, (v) => ({ a: v }));
    expect(CreateEpisodeBody.safeParse({ content: "ok", metadata: over }).success).toBe(false);
  });

  it("still refuses oversized and non-object metadata", () => {
    expect(CreateEpisodeBody.safeParse({ content: "ok", metadata: { a: "x".repeat(20_000) } }).success).toBe(false);
    for (const metadata of ["nope", 1, null, [1, 2]]) expect(CreateEpisodeBody.safeParse({ content: "ok", metadata }).success).toBe(false);
    expect(CreateEpisodeBody.safeParse({ content: "ok" }).success).toBe(true);
  });

  it("keeps an own __proto__ key as parsed from JSON", () => {
    const body = JSON.parse('{"content":"ok","metadata":{"__proto__":{"x":1},"b":2}}');
    const out = CreateEpisodeBody.parse(body);
    expect(Object.keys(out.metadata!)).toEqual(["__proto__", "b"]);
    expect(Object.getOwnPropertyDescriptor(out.metadata, "__proto__")?.value).toEqual({ x: 1 });
    expect(Object.getPrototypeOf(out.metadata)).toBe(Object.prototype);
  });
});
