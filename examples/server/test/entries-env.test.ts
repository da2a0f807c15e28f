// The example server's entries authentication from the environment: a short AUTH_HS256_SECRET stops start-up
// with a message naming the variable and the minimum; tokens without exp need AUTH_ALLOW_TOKENS_WITHOUT_EXP=1.
import { silentLogger } from "@mountkit/core";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { entriesFromEnv } from "../src/services/entries.js";

const deps = { logger: silentLogger, selfUrl: () => "http://127.0.0.1:9" };
const SECRET = "entries-env-secret-entries-env-secret-0123";

async function status(env: Record<string, string>, token: string) {
  const service = await entriesFromEnv(env, deps);
  try {
    const res = await service.fetch(
      new Request("http://x/api/v1/types/countries/data", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}",
      }),
    );
    return res.status;
  } finally {
    await service.dispose();
  }
}

describe("entries auth from the environment", () => {
  it("refuses an AUTH_HS256_SECRET under 32 bytes at start-up", async () => {
    await expect(entriesFromEnv({ AUTH_HS256_SECRET: "too-short-secret" }, deps)).rejects.toThrow(
      /AUTH_HS256_SECRET: the HS256 secret is 16 bytes; it must be at least 32/,
    );
  });

  it("answers 401 to a token without exp unless AUTH_ALLOW_TOKENS_WITHOUT_EXP=1", async () => {
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("alice").sign(new TextEncoder().encode(SECRET));
    expect(await status({ AUTH_HS256_SECRET: SECRET }, noExp)).toBe(401);
    // past authentication, the empty body is what is wrong
    expect(await status({ AUTH_HS256_SECRET: SECRET, AUTH_ALLOW_TOKENS_WITHOUT_EXP: "1" }, noExp)).toBe(400);
  });
});
