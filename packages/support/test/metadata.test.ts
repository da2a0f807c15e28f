// The hidden metadata block (docs/support.md#messages): its documented form and properties over arbitrary bodies and values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMetadata, parseMetadata, stripMetadata, withMetadata } from "../src/domain/metadata.js";

describe("hidden metadata block", () => {
  it("parses the documented form with URL-encoded values", () => {
    const body = "Hello\n\n<!-- cs:customerId=cust_1;clientMessageId=msg%3Bx%3Dy -->";
    expect(parseMetadata(body)).toEqual({ customerId: "cust_1", clientMessageId: "msg;x=y" });
    expect(stripMetadata(body)).toBe("Hello");
  });

  it("uses the last occurrence and removes the whitespace before it", () => {
    const body = "a <!-- cs:customerId=first --> b \t\n <!-- cs:customerId=second -->";
    expect(parseMetadata(body)).toEqual({ customerId: "second" });
    expect(stripMetadata(body)).toBe("a <!-- cs:customerId=first --> b");
  });

  it("keeps text after the block", () => {
    expect(stripMetadata("x  <!-- cs:a=1 --> tail")).toBe("x tail");
  });

  it("leaves bodies without a complete block alone", () => {
    expect(stripMetadata("no block")).toBe("no block");
    expect(stripMetadata("open <!-- cs:a=1 but never closed")).toBe("open <!-- cs:a=1 but never closed");
    expect(parseMetadata("open <!-- cs:a=1")).toBeUndefined();
    expect(parseMetadata("<!-- other -->")).toBeUndefined();
    expect(stripMetadata(null)).toBeNull();
  });

  it("tolerates malformed escapes and empty parts", () => {
    expect(parseMetadata("<!-- cs:a=%E0%A4%A;;b=2;c -->")).toEqual({ a: "%E0%A4%A", b: "2", c: "" });
  });

  it("keys like __proto__ are plain keys", () => {
    const m = JSON.parse('{"__proto__":"x","constructor":"y"}') as Record<string, string>;
    const parsed = parseMetadata(withMetadata("b", m))!;
    expect(Object.keys(parsed).sort()).toEqual(["__proto__", "constructor"]);
    expect(parsed.__proto__).toBe("x");
    expect({}.constructor).toBe(Object);
  });

  it("formats so a value cannot close the block early", () => {
    expect(formatMetadata({ k: "--> ;=" })).toBe("<!-- cs:k=--%3E%20%3B%3D -->");
  });

  const meta = fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 5 });

  it("property: parse(withMetadata(body, meta)) returns meta, whatever the body and values", () => {
    fc.assert(
      fc.property(fc.string(), meta, (body, m) => {
        expect(parseMetadata(withMetadata(body, m))).toEqual(m);
      }),
      { numRuns: 500 },
    );
  });

  it("property: stripping restores the body without its trailing whitespace", () => {
    fc.assert(
      fc.property(fc.string(), meta, (body, m) => {
        expect(stripMetadata(withMetadata(body, m))).toBe(body.replace(/\s+$/, ""));
      }),
      { numRuns: 500 },
    );
  });

  it("property: stripping removes exactly the last block", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), meta, (before, after, m) => {
        const noOpen = (s: string) => !s.includes("<!-- cs:") && !s.includes("-->");
        fc.pre(noOpen(after));
        const block = formatMetadata(m);
        const body = `${before}${block}${after}`;
        expect(stripMetadata(body)).toBe(before.replace(/\s+$/, "") + after);
      }),
      { numRuns: 500 },
    );
  });

  it("property: a body without `<!-- cs:` is never changed", () => {
    fc.assert(
      fc.property(fc.string(), (body) => {
        fc.pre(!body.includes("<!-- cs:"));
        expect(stripMetadata(body)).toBe(body);
        expect(parseMetadata(body)).toBeUndefined();
      }),
    );
  });
});
