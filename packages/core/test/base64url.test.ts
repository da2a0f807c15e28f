// base64url serves cursors and memory's API keys on every runtime: it must write what Node's Buffer writes.
import { expect, it } from "vitest";
import { base64url } from "../src/index.js";

it("encodes bytes as Buffer's unpadded base64url does", () => {
  for (let n = 0; n < 70; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 151 + n * 29) % 256);
    expect(base64url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
  }
});
