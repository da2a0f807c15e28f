import { describe, expect, it } from "vitest";
import { skipLookup } from "../src/testing.js";

describe("skipLookup", () => {
  it("writes the reason into a skipped test's title and leaves the others alone", () => {
    const lookup = skipLookup([{ reason: "no FTS on this engine", tests: ["searches", "ranks"] }]);
    expect(lookup("searches")).toEqual({ title: "searches (skipped: no FTS on this engine)", skipped: true });
    expect(lookup("stores")).toEqual({ title: "stores", skipped: false });
    expect(skipLookup()("anything")).toEqual({ title: "anything", skipped: false });
  });
});
