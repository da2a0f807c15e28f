// Compile-time typing of `service.api`: registered type ids and their customData types are checked by
// `npm run typecheck` (expectTypeOf and @ts-expect-error lines fail it on a regression); the calls also run.
import {
  type CustomDataOf,
  createEntriesService,
  type EntriesService,
  type Entry,
  type EntryTypeDefinition,
  entryType,
  jwtVerifier,
} from "@mountkit/entries";
import { Schema } from "effect";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import * as z from "zod";
import { japan } from "./fixtures/countries.js";

const auth = jwtVerifier({ secret: "typed-api-test-secret-typed-api-test-secret" });

const Planet = Schema.Struct({ name: Schema.NonEmptyString, moons: Schema.Array(Schema.String) });

const service = createEntriesService({
  auth,
  types: [
    { id: "books", schema: z.object({ isbn: z.string().regex(/^\d{13}$/), pages: z.number().int().optional() }) },
    { id: "planets", schema: Planet },
    { id: "notes", schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  ],
});
afterAll(() => service.dispose());

const book = { name: "B", description: "D", customData: { isbn: "9780262033848" } };

describe("typed api", () => {
  it("zod type: submit, get, list and update carry the schema's type", async () => {
    const e = await service.api.submit({ typeId: "books", ownerId: "u1", entry: book });
    expectTypeOf(e.customData).toEqualTypeOf<{ isbn: string; pages?: number | undefined }>();
    expect(e.customData.isbn).toBe("9780262033848");

    const got = await service.api.get({ typeId: "books", id: e.id });
    expectTypeOf(got).toEqualTypeOf<Entry<{ isbn: string; pages?: number | undefined }>>();
    const page = await service.api.list({ typeId: "books" });
    expectTypeOf(page.items[0]!.customData.isbn).toEqualTypeOf<string>();
    expect(page.items.map((x) => x.id)).toEqual([e.id]);

    const u = await service.api.update({
      typeId: "books",
      id: e.id,
      ownerId: "u1",
      patch: { customData: { isbn: "9780262033848", pages: 1312 } },
    });
    expect(u.customData.pages).toBe(1312);
  });

  it("an unregistered type id or a wrong customData does not compile (and fails at run time too)", async () => {
    // @ts-expect-error "boooks" is not a registered type
    await expect(service.api.submit({ typeId: "boooks", ownerId: "u1", entry: book })).rejects.toMatchObject({ status: 404 });
    // @ts-expect-error "boooks" is not a registered type
    await expect(service.api.get({ typeId: "boooks", id: "x" })).rejects.toMatchObject({ status: 404 });
    // @ts-expect-error "boooks" is not a registered type
    await expect(service.api.list({ typeId: "boooks" })).rejects.toMatchObject({ status: 404 });
    await expect(
      // @ts-expect-error isbn must be a string
      service.api.submit({ typeId: "books", ownerId: "u1", entry: { name: "B", description: "D", customData: { isbn: 9780262033848 } } }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      // @ts-expect-error isbn is required
      service.api.submit({ typeId: "books", ownerId: "u1", entry: { name: "B", description: "D", customData: { pages: 3 } } }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      // @ts-expect-error a patch's customData is typed too
      service.api.update({ typeId: "books", id: "x", ownerId: "u1", patch: { customData: { isbn: false } } }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("Effect Schema type: customData is the schema's Encoded type", async () => {
    const e = await service.api.submit({
      typeId: "planets",
      ownerId: "u1",
      entry: { name: "Mars", description: "Red", customData: { name: "Mars", moons: ["Phobos", "Deimos"] } },
    });
    expectTypeOf(e.customData).toEqualTypeOf<{ readonly name: string; readonly moons: readonly string[] }>();
    expect(e.customData.moons).toEqual(["Phobos", "Deimos"]);
    const bad = service.api.submit({
      typeId: "planets",
      ownerId: "u1",
      // @ts-expect-error moons is an array of strings
      entry: { name: "P", description: "D", customData: { name: "P", moons: 2 } },
    });
    await expect(bad).rejects.toMatchObject({ status: 422 });
  });

  it("JSON Schema type: registered id, customData is Record<string, unknown>", async () => {
    const e = await service.api.submit({
      typeId: "notes",
      ownerId: "u1",
      entry: { name: "N", description: "D", customData: { text: "hi" } },
    });
    expectTypeOf(e.customData).toEqualTypeOf<Record<string, unknown>>();
    expect(e.customData).toEqual({ text: "hi" });
  });

  it("built-in types apis and countries are typed", async () => {
    const c = await service.api.submit({
      typeId: "countries",
      ownerId: "u1",
      entry: { name: "Japan", description: "d", customData: japan },
    });
    expectTypeOf(c.customData.alpha2).toEqualTypeOf<string>();
    expect(c.customData.alpha2).toBe("JP");
    type Apis = Awaited<ReturnType<typeof service.api.get<"apis">>>["customData"];
    expectTypeOf<Apis["specUrl"]>().toEqualTypeOf<string>();
    expectTypeOf<Apis["contact"]>().toEqualTypeOf<
      { name?: string | undefined; email?: string | undefined; url?: string | undefined } | undefined
    >();
    await expect(
      // @ts-expect-error countries need every member
      service.api.submit({ typeId: "countries", ownerId: "u1", entry: { name: "X", description: "d", customData: { name: "X" } } }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it("without host types only the built-in ids compile", async () => {
    const plain = createEntriesService({ auth });
    try {
      expectTypeOf(plain.api.submit<"countries">)
        .parameter(0)
        .toHaveProperty("typeId")
        .toEqualTypeOf<"countries">();
      // @ts-expect-error no "books" type in this service
      await expect(plain.api.get({ typeId: "books", id: "x" })).rejects.toMatchObject({ status: 404 });
    } finally {
      await plain.dispose();
    }
  });

  it("types built at run time (plain EntryTypeDefinition[]) keep the untyped api; typed services fit EntriesService", async () => {
    const defs: EntryTypeDefinition[] = [{ id: "late", schema: { type: "object" } }];
    const dynamic = createEntriesService({ auth, types: defs });
    try {
      const e = await dynamic.api.submit({ typeId: "late", ownerId: "u1", entry: { name: "L", description: "D", customData: { a: 1 } } });
      expectTypeOf(e.customData).toEqualTypeOf<Record<string, unknown>>();
      expectTypeOf(dynamic.api.get).parameter(0).toHaveProperty("typeId").toEqualTypeOf<string>();
      const asUntyped: EntriesService = service;
      expect(asUntyped.api).toBe(service.api);
    } finally {
      await dynamic.dispose();
    }
  });

  it("entryType keeps the id literal and types the prepare hook", () => {
    const magazines = entryType({
      id: "magazines",
      schema: z.object({ issn: z.string() }),
      prepare: async (customData) => {
        expectTypeOf(customData).toEqualTypeOf<{ issn: string }>();
        return { tags: [customData.issn] };
      },
    });
    expectTypeOf(magazines.id).toEqualTypeOf<"magazines">();
    expectTypeOf<CustomDataOf<typeof Planet>>().toEqualTypeOf<{ readonly name: string; readonly moons: readonly string[] }>();
    expectTypeOf<CustomDataOf<{ type: "object" }>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<CustomDataOf<z.ZodAny>>().toEqualTypeOf<Record<string, unknown>>();
  });
});
