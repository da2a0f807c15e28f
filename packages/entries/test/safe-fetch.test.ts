// Safe fetching of user-chosen URLs: refused address classes, DNS answers checked, pinned connections, redirects, caps.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkAddress, SpecFetchError, safeFetch } from "@mountkit/entries";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

async function refusal(url: string, options: Parameters<typeof safeFetch>[1] = {}): Promise<string> {
  try {
    await safeFetch(url, options);
    return "fetched";
  } catch (e) {
    if (!(e instanceof SpecFetchError)) throw e;
    return `${e.kind}: ${e.message}`;
  }
}

describe("address policy", () => {
  const refused: Array<[string, RegExp]> = [
    ["127.0.0.1", /loopback/],
    ["127.255.0.9", /loopback/],
    ["::1", /loopback/],
    ["::ffff:127.0.0.1", /127\.0\.0\.1 is a loopback/],
    ["10.1.2.3", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.1.1", /private/],
    ["fd12:3456::1", /private/],
    ["169.254.10.10", /link-local/],
    ["fe80::1", /link-local/],
    ["169.254.169.254", /metadata/],
    ["fd00:ec2::254", /metadata/],
    ["100.100.100.200", /metadata/],
    ["100.64.0.1", /carrier-grade/],
    ["0.0.0.0", /unspecified/],
    ["::", /unspecified/],
    ["224.0.0.1", /multicast/],
    ["255.255.255.255", /broadcast/],
    ["192.0.2.1", /reserved/],
    ["64:ff9b::7f00:1", /NAT64/],
    ["2002:7f00:1::", /6to4/],
  ];
  for (const [ip, why] of refused) {
    it(`refuses ${ip}`, () => {
      const v = checkAddress(ip);
      expect(v.allowed).toBe(false);
      if (!v.allowed) expect(v.reason).toMatch(why);
    });
  }
  it("allows public unicast", () => {
    for (const ip of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "172.32.0.1", "100.128.0.1"])
      expect(checkAddress(ip)).toEqual({ allowed: true });
  });
  it("allowPrivate lets loopback and private through, never metadata", () => {
    expect(checkAddress("127.0.0.1", { allowPrivate: true }).allowed).toBe(true);
    expect(checkAddress("10.0.0.1", { allowPrivate: true }).allowed).toBe(true);
    expect(checkAddress("169.254.169.254", { allowPrivate: true }).allowed).toBe(false);
  });
});

describe("safeFetch refuses before any request leaves", () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it("every refused class and spelling of a local target", async () => {
    const urls = [
      `http://127.0.0.1:${port}/spec.json`,
      `http://localhost:${port}/spec.json`,
      `http://localhost.:${port}/spec.json`,
      `http://api.localhost:${port}/spec.json`,
      `http://127.1:${port}/spec.json`,
      `http://2130706433:${port}/spec.json`,
      `http://0x7f000001:${port}/spec.json`,
      `http://[::1]:${port}/spec.json`,
      `http://[::ffff:127.0.0.1]:${port}/spec.json`,
      `http://0.0.0.0:${port}/spec.json`,
      "http://10.0.0.8/spec.json",
      "http://192.168.0.10/spec.json",
      "http://172.20.1.1/spec.json",
      "http://169.254.169.254/latest/meta-data/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://[fe80::1]/x",
      "http://[fd00:ec2::254]/x",
    ];
    for (const url of urls) expect(await refusal(url), url).toMatch(/^refused: /);
    expect(hits).toBe(0);
  });

  it("non-http(s) schemes and credentials", async () => {
    for (const url of ["file:///etc/passwd", "ftp://example.com/x", "gopher://example.com/", "data:text/plain,hi", "javascript:alert(1)"]) {
      expect(await refusal(url), url).toMatch(/^refused: .* URLs are not allowed/);
    }
    expect(await refusal("https://user:pw@example.com/x")).toMatch(/credentials/);
  });

  it("checks what DNS answers: any private address in the answer refuses the name", async () => {
    const resolve = async (host: string) =>
      host === "mixed.test"
        ? [
            { address: "93.184.216.34", family: 4 as const },
            { address: "10.0.0.5", family: 4 as const },
          ]
        : [{ address: "127.0.0.1", family: 4 as const }];
    expect(await refusal(`http://mixed.test:${port}/`, { resolve })).toMatch(
      /refused: mixed\.test resolves to 10\.0\.0\.5 is a private address/,
    );
    expect(await refusal(`http://rebind.test:${port}/`, { resolve })).toMatch(
      /refused: rebind\.test resolves to 127\.0\.0\.1 is a loopback/,
    );
    expect(hits).toBe(0);
  });
});

describe("safeFetch mechanics (allowPrivate on to reach local test servers)", () => {
  let server: Server;
  let base = "";
  let port = 0;
  const hosts: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hosts.push(req.headers.host ?? "");
      const u = req.url ?? "";
      if (u === "/ok") res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      else if (u === "/to-metadata") res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      else if (u === "/to-file") res.writeHead(301, { location: "file:///etc/passwd" }).end();
      else if (u === "/to-ok") res.writeHead(307, { location: "/ok" }).end();
      else if (u.startsWith("/loop")) res.writeHead(302, { location: `/loop${u.length}` }).end();
      else if (u === "/big") res.writeHead(200, { "content-length": "5000" }).end("x".repeat(5000));
      else if (u === "/big-chunked") {
        res.writeHead(200);
        for (let i = 0; i < 10; i++) res.write("y".repeat(500));
        res.end();
      } else if (u === "/slow") setTimeout(() => res.end("late"), 5000).unref();
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });

  const o = { allowPrivate: true };
  it("fetches, follows a relative redirect", async () => {
    const r = await safeFetch(`${base}/to-ok`, o);
    expect(new TextDecoder().decode(r.body)).toBe('{"ok":true}');
    expect(r.url).toBe(`${base}/ok`);
  });
  it("re-checks every redirect target", async () => {
    expect(await refusal(`${base}/to-metadata`, o)).toMatch(/^refused: 169\.254\.169\.254 is a cloud metadata address/);
    expect(await refusal(`${base}/to-file`, o)).toMatch(/^refused: file: URLs are not allowed/);
    expect(await refusal(`${base}/loop`, { ...o, maxRedirects: 3 })).toMatch(/more than 3 redirects/);
  });
  it("connects to the checked address, not to a second DNS answer", async () => {
    const resolve = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const r = await safeFetch(`http://pinned.invalid:${port}/ok`, { ...o, resolve });
    expect(r.status).toBe(200);
    expect(hosts).toContain(`pinned.invalid:${port}`);
  });
  it("caps size (declared and streamed) and time; non-2xx fails", async () => {
    expect(await refusal(`${base}/big`, { ...o, maxBytes: 1000 })).toMatch(/^failed: the document is larger than 1000 bytes/);
    expect(await refusal(`${base}/big-chunked`, { ...o, maxBytes: 1000 })).toMatch(/^failed: the document is larger than 1000 bytes/);
    expect(await refusal(`${base}/slow`, { ...o, timeoutMs: 200 })).toMatch(/^failed: no complete answer within 200 ms/);
    expect(await refusal(`${base}/missing`, o)).toMatch(/^failed: .* answered 404/);
  });
});
