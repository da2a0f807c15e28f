// Type registry: built-in types, host types in zod, Effect Schema and JSON Schema; every failing path listed.

import { builtinTypes, flagOf, typeRegistry } from "@mountkit/entries";
import { Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { france } from "./fixtures/countries.js";

const registry = typeRegistry([builtinTypes.apis(), builtinTypes.countries()]);
const validate = (typeId: string, value: unknown) => registry.get(typeId)!.schema.validate(value);
const paths = (r: Awaited<ReturnType<typeof validate>>) => (r.ok ? [] : r.issues.map((i) => i.path).sort());

describe("built-in types", () => {
  it("flagOf builds the regional-indicator pair", () => {
    expect(flagOf("FR")).toBe("🇫🇷");
    expect(flagOf("jp")).toBe("🇯🇵");
  });

  it("countries: a full record validates", async () => {
    expect((await validate("countries", france)).ok).toBe(true);
  });

  it("countries: every failing member is listed, the flag check included", async () => {
    const r = await validate("countries", { ...france, name: undefined, alpha3: "fr", numeric: "25", emoji: "🇩🇪" });
    expect(paths(r)).toEqual(["alpha3", "emoji", "name", "numeric"]);
  });

  it("countries: unknown members are refused, not silently dropped", async () => {
    expect(paths(await validate("countries", { ...france, capital: "Paris" }))).toEqual([""]);
  });

  it("apis: specUrl required and http(s); contact.email and contact.url checked", async () => {
    expect((await validate("apis", { specUrl: "https://example.com/openapi.json" })).ok).toBe(true);
    expect(
      (
        await validate("apis", {
          specUrl: "https://example.com/o.yaml",
          contact: { name: "A", email: "a@example.com", url: "https://example.com" },
        })
      ).ok,
    ).toBe(true);
    const r = await validate("apis", { specUrl: "ftp://example.com/x", contact: { email: "not-an-email", url: "javascript:alert(1)" } });
    expect(paths(r)).toEqual(["contact.email", "contact.url", "specUrl"]);
    expect(paths(await validate("apis", {}))).toEqual(["specUrl"]);
    expect(paths(await validate("apis", { specUrl: "/relative" }))).toEqual(["specUrl"]);
  });

  it("each type yields a JSON Schema with its members", () => {
    const apis = registry.get("apis")!.schema.jsonSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(apis.properties)).toEqual(["specUrl", "contact"]);
    expect(apis.required).toEqual(["specUrl"]);
    const countries = registry.get("countries")!.schema.jsonSchema as { required: string[] };
    expect(countries.required.sort()).toEqual(["alpha2", "alpha3", "emoji", "name", "numeric", "officialName", "sovereignty"]);
  });
});

describe("host-registered types", () => {
  it("zod: validates, lists every path, yields JSON Schema", async () => {
    const reg = typeRegistry([
      {
        id: "books",
        schema: z.object({
          isbn: z.string().regex(/^\d{13}$/),
          pages: z.number().int().positive(),
          author: z.object({ name: z.string().min(1) }),
        }),
      },
    ]);
    const t = reg.get("books")!;
    expect((await t.schema.validate({ isbn: "9780000000000", pages: 10, author: { name: "A" } })).ok).toBe(true);
    const r = await t.schema.validate({ isbn: "x", pages: -1, author: {} });
    expect(paths(r)).toEqual(["author.name", "isbn", "pages"]);
    expect((t.schema.jsonSchema as { properties: object }).properties).toHaveProperty("isbn");
  });

  it("Effect Schema: validates, lists every path (not just the first), yields JSON Schema", async () => {
    const Planet = Schema.Struct({
      name: Schema.String.pipe(Schema.minLength(1)),
      radiusKm: Schema.Number.pipe(Schema.positive()),
      moons: Schema.Array(Schema.Struct({ name: Schema.String })),
    });
    const reg = typeRegistry([{ id: "planets", schema: Planet }]);
    const t = reg.get("planets")!;
    expect((await t.schema.validate({ name: "Mars", radiusKm: 3389.5, moons: [{ name: "Phobos" }] })).ok).toBe(true);
    const r = await t.schema.validate({ name: "", radiusKm: -1, moons: [{}] });
    expect(paths(r)).toEqual(["moons[0].name", "name", "radiusKm"]);
    const js = t.schema.jsonSchema as { required: string[]; $schema?: string };
    expect(js.required).toEqual(["name", "radiusKm", "moons"]);
    expect(js.$schema).toBeUndefined();
  });

  it("JSON Schema: validates with every path, required and extra members named", async () => {
    const reg = typeRegistry([
      {
        id: "colours",
        schema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          additionalProperties: false,
          required: ["hex", "name"],
          properties: {
            hex: { type: "string", pattern: "^#[0-9a-f]{6}$" },
            name: { type: "string" },
            rgb: { type: "array", items: { type: "integer", maximum: 255 } },
          },
        },
      },
    ]);
    const t = reg.get("colours")!;
    expect((await t.schema.validate({ hex: "#ff0000", name: "red" })).ok).toBe(true);
    const r = await t.schema.validate({ hex: "red", rgb: [1, 300], extra: 1 });
    expect(paths(r)).toEqual(["extra", "hex", "name", "rgb[1]"]);
  });

  it("refuses bad type ids and duplicates", () => {
    expect(() => typeRegistry([{ id: "Bad Id", schema: z.object({}) }])).toThrow(/invalid type id/);
    expect(() => typeRegistry([builtinTypes.countries(), builtinTypes.countries()])).toThrow(/already registered/);
  });
});
