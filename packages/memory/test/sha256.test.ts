// API-key hashes come from @noble/hashes (no node:crypto on the root entry): they must equal node:crypto's,
// or keys stored before would stop matching.
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { hashApiKey } from "../src/index.js";

it("hashes keys exactly as node:crypto's SHA-256 does", () => {
  const inputs = ["", "a", "mk_live_abc", "é✓ unicode 🔑", "x".repeat(55), "x".repeat(56), "y".repeat(64), "z".repeat(1000)];
  for (let i = 0; i < 200; i++)
    inputs.push(Array.from({ length: i }, (_, j) => String.fromCharCode(32 + ((i * 31 + j * 7) % 95))).join(""));
  for (const text of inputs) expect(hashApiKey(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
});
