import { describe, expect, it } from "vitest";
import { bm25Index } from "../src/retrieval/bm25.js";
import { reciprocalRankFusion } from "../src/retrieval/fusion.js";
import { findDates, resolveDate } from "../src/text/dates.js";
import { jaroWinkler, nameKey, nameKeys } from "../src/text/names.js";
import { stem, terms } from "../src/text/tokenize.js";

const REF = Date.UTC(2023, 4, 8, 13, 56); // Monday 8 May 2023
const d = (s: string) => Date.parse(`${s}T00:00:00Z`);

describe("tokenize", () => {
  it("maps inflections of a word to one term", () => {
    expect(stem("painted")).toBe(stem("painting"));
    expect(stem("paints")).toBe(stem("paint"));
    expect(stem("researching")).toBe(stem("research"));
    expect(stem("studies")).toBe(stem("studied"));
    expect(stem("making")).toBe(stem("make"));
    expect(stem("stopped")).toBe(stem("stop"));
  });
  it("drops stop words and folds accents", () => {
    expect(terms("The Café was in Zürich")).toEqual([stem("cafe"), "zurich"]);
  });
});

describe("names", () => {
  it("normalises spelling, honorifics and possessives", () => {
    expect(nameKey("  Alice   Moreau ")).toBe("alice moreau");
    expect(nameKey("alicé moreau")).toBe("alice moreau");
    expect(nameKey("Dr. Alice Moreau's")).toBe("alice moreau");
    expect(nameKey("Acme Corp.")).toBe("acme");
    expect(nameKeys(["Alice Moreau"])).toEqual(["alice moreau", "t:alice", "t:moreau"]);
  });
  it("scores near-spellings high and different names low", () => {
    expect(jaroWinkler("alice moreau", "alice moraeu")).toBeGreaterThan(0.93);
    expect(jaroWinkler("alice", "bob")).toBeLessThan(0.6);
  });
});

describe("dates", () => {
  it("resolves absolute dates", () => {
    expect(resolveDate("8 May, 2023", REF)).toBe(d("2023-05-08"));
    expect(resolveDate("May 8th, 2023", REF)).toBe(d("2023-05-08"));
    expect(resolveDate("March 2021", REF)).toBe(d("2021-03-01"));
    expect(resolveDate("in 2019", REF)).toBe(d("2019-01-01"));
    expect(resolveDate("2022-11-03", REF)).toBe(d("2022-11-03"));
  });
  it("resolves relative dates against the reference time", () => {
    expect(resolveDate("yesterday", REF)).toBe(d("2023-05-07"));
    expect(resolveDate("last year", REF)).toBe(d("2022-01-01"));
    expect(resolveDate("last month", REF)).toBe(d("2023-04-01"));
    expect(resolveDate("two weeks ago", REF)).toBe(d("2023-04-24"));
    expect(resolveDate("3 days ago", REF)).toBe(d("2023-05-05"));
    expect(resolveDate("last Friday", REF)).toBe(d("2023-05-05"));
    expect(resolveDate("next month", REF)).toBe(d("2023-06-01"));
    expect(resolveDate("in March", REF)).toBe(d("2023-03-01"));
    expect(resolveDate("in September", REF)).toBe(d("2022-09-01"));
    expect(resolveDate("someday", REF)).toBeNull();
  });
  it("finds the expressions in a text", () => {
    expect(findDates("I painted it last year and moved on 3 June 2021.").map((m) => m.text)).toEqual(["last year", "3 June 2021"]);
  });
});

describe("bm25", () => {
  it("ranks the document sharing the rarer terms first and honours filters", () => {
    const idx = bm25Index();
    idx.add("a", "Alice lives in Paris with her cat");
    idx.add("b", "Bob lives in Lyon");
    idx.add("c", "Carol paints sunsets in Paris");
    expect(idx.search("Where does Alice live?", { limit: 3 }).map((h) => h.item)[0]).toBe("a");
    expect(idx.search("paintings of sunsets", { limit: 3 }).map((h) => h.item)).toEqual(["c"]);
    expect(idx.search("Paris", { limit: 3, accept: (id) => id !== "a" }).map((h) => h.item)).toEqual(["c"]);
    idx.remove("c");
    expect(idx.search("sunsets", { limit: 3 })).toEqual([]);
    expect(idx.size).toBe(2);
  });
  it("fuses rankings by reciprocal rank", () => {
    const fused = reciprocalRankFusion([{ ids: ["x", "y", "z"] }, { ids: ["y", "z"] }]);
    expect(fused.map((f) => f.id)).toEqual(["y", "z", "x"]);
  });
});
