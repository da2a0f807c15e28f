// The validation-address client: local versus remote, self-detection, and what a remote answer may be.

import { remoteValidationClient, sameAddress, ValidatorUnavailableError, validationAddress, validationClient } from "@mountkit/entries";
import { describe, expect, it } from "vitest";

const local = async () => ({ answer: { valid: false as const, errors: [{ path: "", message: "local" }] } });

describe("validation client", () => {
  it("sameAddress treats loopback names alike and ignores trailing slashes", () => {
    expect(sameAddress("http://localhost:3000/api/dev/validate-openapi/", "http://127.0.0.1:3000/api/dev/validate-openapi")).toBe(true);
    expect(sameAddress("http://127.0.0.1:3000/api/dev/validate-openapi/", "http://127.0.0.1:3001/api/dev/validate-openapi/")).toBe(false);
    expect(sameAddress("http://kit.example/api/dev/validate-openapi/", "http://kit.example/x/api/dev/validate-openapi/")).toBe(false);
    expect(validationAddress("http://kit.example/")).toBe("http://kit.example/api/dev/validate-openapi/");
  });

  it("stays in process with no URL or when the URL is the server itself", async () => {
    const calls: string[] = [];
    const fakeFetch = (async (u: URL) => {
      calls.push(String(u));
      return new Response(JSON.stringify({ valid: false, errors: [] }), { status: 422 });
    }) as unknown as typeof fetch;
    const none = validationClient({ local, fetch: fakeFetch });
    expect(none.isLocal()).toBe(true);
    const self = validationClient({
      local,
      url: "http://localhost:3000",
      selfUrl: () => "http://127.0.0.1:3000/api/dev/validate-openapi/",
      fetch: fakeFetch,
    });
    expect(self.isLocal()).toBe(true);
    expect((await self.validate({ body: new Uint8Array() })).answer).toEqual({ valid: false, errors: [{ path: "", message: "local" }] });
    const remote = validationClient({
      local,
      url: "http://validator.internal:8080",
      selfUrl: () => "http://127.0.0.1:3000/api/dev/validate-openapi/",
      fetch: fakeFetch,
    });
    expect(remote.isLocal()).toBe(false);
    await remote.validate({ body: new Uint8Array([123, 125]), baseUrl: "https://specs.example.com/a.json" });
    expect(calls).toEqual(["http://validator.internal:8080/api/dev/validate-openapi/?baseUrl=https%3A%2F%2Fspecs.example.com%2Fa.json"]);
  });

  it("a remote answer other than 200 valid / 422 invalid is 'unavailable', not a verdict", async () => {
    const answering = (status: number, body: string) =>
      remoteValidationClient({ url: "http://v.test", fetch: (async () => new Response(body, { status })) as unknown as typeof fetch });
    await expect(answering(500, '{"error":"internal error"}').validate({ body: new Uint8Array() })).rejects.toBeInstanceOf(
      ValidatorUnavailableError,
    );
    await expect(answering(200, "<html>").validate({ body: new Uint8Array() })).rejects.toBeInstanceOf(ValidatorUnavailableError);
    await expect(answering(200, '{"valid":false}').validate({ body: new Uint8Array() })).rejects.toBeInstanceOf(ValidatorUnavailableError);
    expect((await answering(422, '{"valid":false,"errors":[]}').validate({ body: new Uint8Array() })).answer.valid).toBe(false);
    const down = remoteValidationClient({
      url: "http://v.test",
      fetch: (async () => {
        throw new Error("ECONNREFUSED");
      }) as unknown as typeof fetch,
    });
    await expect(down.validate({ body: new Uint8Array() })).rejects.toThrow(/could not reach/);
  });
});
