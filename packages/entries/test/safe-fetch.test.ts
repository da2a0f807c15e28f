// Safe fetching of user-chosen URLs: refused address classes, DNS answers checked, pinned connections, redirects, caps.
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAddress, SpecFetchError } from "@mountkit/entries";
import { safeFetch } from "@mountkit/entries/node";

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
    // every embedding of an IPv4 address in IPv6 is judged by the IPv4 address it carries
    ["::7f00:1", /IPv4-compatible address embedding 127\.0\.0\.1 is a loopback/],
    ["::127.0.0.1", /loopback/],
    ["::a00:1", /IPv4-compatible address embedding 10\.0\.0\.1 is a private/],
    ["::a9fe:a9fe", /embedding 169\.254\.169\.254 is a cloud metadata/],
    ["::ffff:0:7f00:1", /IPv4-translated address embedding 127\.0\.0\.1 is a loopback/],
    ["::ffff:a9fe:a9fe", /169\.254\.169\.254 is a cloud metadata/],
    ["64:ff9b::a9fe:a9fe", /NAT64 address embedding 169\.254\.169\.254 is a cloud metadata/],
    ["64:ff9b::c0a8:101", /NAT64 address embedding 192\.168\.1\.1 is a private/],
    ["64:ff9b:1:7f00:0:100::", /local-use NAT64 address embedding 127\.0\.0\.1 is a loopback/],
    ["2002:a9fe:a9fe::1", /6to4 address embedding 169\.254\.169\.254 is a cloud metadata/],
    ["2002:a00:1::", /6to4 address embedding 10\.0\.0\.1 is a private/],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", /Teredo/],
    // IPv6 outside 2000::/3 (the only global unicast block) is reserved, `::/8` beyond the IPv4-compatible block included
    ["::1:0:0:1", /reserved/],
    ["::1:7f00:1", /reserved/],
    ["0:1::1", /reserved/],
    ["ff::1", /reserved/],
    ["100::1", /discard/],
    ["100:0:0:1::1", /reserved/],
    ["200::1", /reserved/],
    ["400::1", /reserved/],
    ["4000::1", /reserved/],
    ["5f00::1", /special-purpose|reserved/],
    ["e000::1", /reserved/],
    ["fec0::1", /site-local/],
    // reserved IPv6 inside 2000::/3
    ["2001:db8::1", /reserved/],
    ["2001:2::1", /benchmarking/],
    ["2001:10::1", /ORCHID/],
    ["2001:20::1", /ORCHID/],
    ["3fff::1", /reserved/],
    // reserved and special-purpose IPv4 (IANA's special-purpose registry)
    ["0.1.2.3", /unspecified/],
    ["192.0.0.8", /reserved/],
    ["192.0.0.170", /reserved/],
    ["192.88.99.1", /reserved/],
    ["198.18.0.1", /reserved/],
    ["198.19.255.255", /reserved/],
    ["198.51.100.7", /reserved/],
    ["203.0.113.9", /reserved/],
    ["240.0.0.1", /reserved/],
    ["192.31.196.1", /AS112/],
    ["192.175.48.1", /AS112/],
    ["192.52.193.1", /AMT/],
  ];
  for (const [ip, why] of refused) {
    it(`refuses ${ip}`, () => {
      const v = checkAddress(ip);
      expect(v.allowed).toBe(false);
      if (!v.allowed) expect(v.reason).toMatch(why);
    });
  }
  it("allows public unicast", () => {
    for (const ip of [
      "93.184.216.34",
      "8.8.8.8",
      "2606:4700:4700::1111",
      "2a00:1450:4001::200e",
      "3ffe:ffff::1",
      "172.32.0.1",
      "100.128.0.1",
    ])
      expect(checkAddress(ip)).toEqual({ allowed: true });
  });
  it("allows an embedded IPv4 address that is itself public", () => {
    for (const ip of ["::808:808", "64:ff9b::808:808", "2002:808:808::1", "::ffff:0:808:808"])
      expect(checkAddress(ip), ip).toEqual({ allowed: true });
  });
  it("allowPrivate treats an embedded loopback like loopback, and embedded metadata stays refused", () => {
    expect(checkAddress("::7f00:1", { allowPrivate: true }).allowed).toBe(true);
    expect(checkAddress("64:ff9b::a9fe:a9fe", { allowPrivate: true }).allowed).toBe(false);
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
      `http://[::127.0.0.1]:${port}/spec.json`,
      `http://[::7f00:1]:${port}/spec.json`,
      `http://[64:ff9b::7f00:1]:${port}/spec.json`,
      `http://[2002:7f00:1::]:${port}/spec.json`,
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
      else if (u === "/trickle" || u === "/trickle-close") {
        // no Content-Length (chunked): half a document at once, the rest long after the time cap
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{"/a":{},');
        if (u === "/trickle") setTimeout(() => res.end('"/b":{}}}'), 5000).unref();
        // or the server drops the connection mid-body: also not a document
        else setTimeout(() => res.socket?.destroy(), 50).unref();
      } else res.writeHead(404).end();
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
    expect(await refusal(`${base}/slow`, { ...o, timeoutMs: 200 })).toMatch(/^failed: timed out: no complete answer within 200 ms/);
    expect(await refusal(`${base}/missing`, o)).toMatch(/^failed: .* answered 404/);
  });
  it("never returns a partial body: a time cap hit mid-body or a dropped connection fails", async () => {
    expect(await refusal(`${base}/trickle`, { ...o, timeoutMs: 300 })).toMatch(/^failed: timed out: no complete answer within 300 ms/);
    expect(await refusal(`${base}/trickle-close`, { ...o, timeoutMs: 5000 })).toMatch(
      /^failed: .*(closed before the whole document arrived|ECONNRESET|aborted)/,
    );
  });
  it("a body delimited by connection close (no Content-Length, not chunked) cut by the time cap fails, naming the cap", async () => {
    // the case that used to pass a truncated document as whole: destroying the socket looks like the body's end
    const raw = createNetServer((socket) => {
      socket.once("data", () => {
        socket.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n");
        socket.write('{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{"/a":{},');
      });
    });
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/spec.json`;
      expect(await refusal(url, { ...o, timeoutMs: 300 })).toMatch(/^failed: timed out: no complete answer within 300 ms/);
    } finally {
      await new Promise((r) => raw.close(r));
    }
  });
});
