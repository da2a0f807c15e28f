import { describe, expect, it } from "vitest";
import * as testing from "../src/index.js";

describe("@mountkit/testing", () => {
  it("exports the conformance suite of every store interface", () => {
    expect(typeof testing.describeSupportStore).toBe("function");
    expect(typeof testing.describeMemoryStore).toBe("function");
    expect(typeof testing.describeEntriesStore).toBe("function");
  });
});
