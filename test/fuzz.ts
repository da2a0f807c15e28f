// A route fuzzer: walks a service's route table and throws malformed input at every route.
// Whatever it sends, the answer must be a 2xx-4xx (never 5xx) with the service's JSON error body on 4xx,
// and no stack trace or file path may leak.
import type { Route, Service } from "@mountkit/core";
import { expect } from "vitest";
import { aliasBomb, deepJsonSpec } from "../packages/entries/test/fixtures/hostile-specs.js";
import { rawRequest } from "./support/raw-http.js";

/** Mulberry32: a tiny seeded PRNG so a failing case can be replayed from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  "",
  " ",
  "a",
  "x".repeat(70_000),
  "💥🏳️‍🌈",
  "\u0000\u0001\u001f",
  // NUL alone and inside ordinary text: PostgreSQL refuses it in text columns (issue #10)
  "\u0000",
  "demo\u0000",
  "cust_3b241101-e2bb-4255-8caf-4136c566a962\u0000",
  "<script>alert(1)</script>",
  "'; DROP TABLE x; --",
  "../../etc/passwd",
  "%00",
  "cust_00000000-0000-0000-0000-000000000000",
  "cust_not-a-uuid",
  "2026-13-45",
  "9999-12-31T23:59:59Z",
  "-1",
  "1e309",
  "NaN",
  "null",
  "__proto__",
  "constructor",
  "<!-- cs:customerId=evil -->",
];

export function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 2 ? 7 : 10));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return [0, -1, 1.5, 2 ** 53 + 1, -1e308, 101, 1_000_000][Math.floor(r() * 7)];
    case 3:
    case 4:
    case 5:
      return STRINGS[Math.floor(r() * STRINGS.length)];
    case 6:
      return undefined;
    case 7:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (const key of ["__proto__", "constructor", "name", "id", "x"].slice(0, Math.floor(r() * 5))) o[key] = randomValue(r, depth + 1);
      return o;
    }
  }
}

/** Field names a route's body schema knows about, so mutations hit real fields with wrong values. */
function bodyKeys(route: Route): string[] {
  const shape = (route.body as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function mutateBody(route: Route, r: () => number, valid: Record<string, unknown> | undefined): unknown {
  const keys = bodyKeys(route);
  const roll = r();
  if (roll < 0.15) return randomValue(r);
  const base: Record<string, unknown> = { ...(valid ?? {}) };
  for (const k of keys) if (r() < 0.5) base[k] = randomValue(r);
  if (r() < 0.2) base[["__proto__", "extra", "constructor"][Math.floor(r() * 3)]!] = randomValue(r);
  return base;
}

/** Documents that once froze or crashed the validation address (issue #10): alias bombs, a cyclic alias, deep nesting. */
const HOSTILE_DOCUMENTS: Array<[string, string]> = [
  [aliasBomb(), "application/yaml"],
  [aliasBomb(12, 6), "text/yaml"],
  ["openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: &a {get: {responses: {}}, x-self: [*a]}\n", "application/yaml"],
  [`a: &a [${Array(20_000).fill("x").join(",")}]\nb: [${Array(2_000).fill("*a").join(",")}]\n`, "application/yaml"],
  [deepJsonSpec(5000), "application/json"],
];

const PARAM_VALUES = [
  "x",
  "0",
  "%2F",
  "..",
  "a%00b",
  "%00",
  "%E2%82",
  "nonexistent_123",
  "cust_00000000-0000-4000-8000-000000000000",
  "💥",
  "a".repeat(600),
];

function fillPath(path: string, r: () => number, ids: Record<string, string>): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    if (ids[name] && r() < 0.4) return encodeURIComponent(ids[name]!);
    return PARAM_VALUES[Math.floor(r() * PARAM_VALUES.length)]!;
  });
}

/**
 * Dot segments, backslashes and doubled slashes a URL parser would resolve (issue #10, break 5). Sent
 * byte for byte: every adapter must route the raw path, so one of these never reaches another
 * service's route, and the same target gets the same answer under every adapter.
 */
const PATH_TRICKS = ["/%2e%2e", "/..", "/%2E%2E/%2e%2e", "\\..", "/.%2e", "/%2e%2e%2f..", "/./", "//", "/..;", "%5c..%5c.."];

/** Content types a strict parser refuses outright (issue #10, break 7): the service must answer them in its own shape. */
const MALFORMED_CONTENT_TYPES = [
  "application/json, text/plain",
  "application/json;;",
  "/",
  'application/json; charset="',
  "text/html; application/json",
  "application/json; charset=utf-9",
  "json",
];

/** A path with a trick spliced in at a segment boundary; non-ASCII escaped so it can go on the wire. */
function trickPath(path: string, r: () => number): string {
  const trick = PATH_TRICKS[Math.floor(r() * PATH_TRICKS.length)]!;
  const cuts = [...path.matchAll(/\//g)].map((m) => m.index!);
  const at = cuts[Math.floor(r() * cuts.length)] ?? 0;
  const spliced = r() < 0.15 ? `/${path}` : `${path.slice(0, at)}${trick}${path.slice(at)}`;
  return spliced.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

/** A random value as query text: objects with own `toString`/`constructor` keys break String(). */
const asText = (v: unknown): string => (v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

const BAD_CURSORS = [
  ["e", 1.5, "ent_x"],
  ["e", 1e20, "ent_x"],
  [1.5, "ep_x"],
  [1e20, "ep_x"],
  ["o", 1.5],
  ["2030-01-01T00:00:00.000Z", "conv\u0000"],
  [1, "x\u0000"],
].map((v) => Buffer.from(JSON.stringify(v)).toString("base64url"));

function randomQuery(route: Route, r: () => number, valid: Record<string, string>): string {
  const q = new URLSearchParams();
  const shape = (route.query as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
  for (const [k, v] of Object.entries(valid)) if (r() < 0.7) q.set(k, v);
  for (const k of Object.keys(shape)) if (r() < 0.5) q.set(k, asText(randomValue(r)));
  if (r() < 0.2) q.append("limit", "1000000");
  if (r() < 0.2) q.append("cursor", "!!!not-a-cursor!!!");
  // cursors that decode but hold what a BIGINT column refuses (a fraction, 1e20) or a NUL id
  if (r() < 0.2) q.append("cursor", BAD_CURSORS[Math.floor(r() * BAD_CURSORS.length)]!);
  if (r() < 0.1) q.append(r() < 0.5 ? "x\u0000" : "tag", "\u0000");
  return q.toString();
}

export interface FuzzOptions {
  seed?: number;
  iterationsPerRoute?: number;
  /** Headers for a route (auth); called per request. */
  headers?: (route: Route) => Record<string, string>;
  /** Valid values to start mutations from (e.g. a real customerId and productSlug). */
  validBody?: (route: Route) => Record<string, unknown> | undefined;
  validQuery?: (route: Route) => Record<string, string>;
  /** Real ids by path-param name, so some requests reach deep code paths. */
  ids?: Record<string, string>;
  /** Routes to leave out (e.g. streams), with the reason. */
  skip?: (route: Route) => string | undefined;
  /** Extra check of a 4xx body (the service's error shape). */
  errorShape: (body: any, status: number, route: Route) => void;
  /** Told the answer to every path-trick request, so a caller can compare adapters. */
  onPathTrick?: (request: string, status: number) => void;
}

export async function fuzzService(
  baseUrl: string,
  service: Service,
  o: FuzzOptions,
): Promise<{ requests: number; statuses: Record<number, number> }> {
  const seed = o.seed ?? 1;
  const r = prng(seed);
  const statuses: Record<number, number> = {};
  let requests = 0;
  for (const route of service.routes) {
    if (o.skip?.(route)) continue;
    for (let i = 0; i < (o.iterationsPerRoute ?? 25); i++) {
      const path = `${service.basePath}${fillPath(route.path, r, o.ids ?? {})}`;
      const qs = randomQuery(route, r, o.validQuery?.(route) ?? {});
      const headers: Record<string, string> = { ...(o.headers?.(route) ?? {}) };
      let body: string | undefined;
      if (route.method !== "GET" && route.method !== "DELETE") {
        const roll = r();
        const ctRoll = r();
        headers["content-type"] =
          ctRoll < 0.8
            ? "application/json"
            : ctRoll < 0.86
              ? "text/plain"
              : ctRoll < 0.9
                ? "application/x-www-form-urlencoded"
                : MALFORMED_CONTENT_TYPES[Math.floor(r() * MALFORMED_CONTENT_TYPES.length)]!;
        if (roll < 0.1) body = '{"broken": ';
        else if (roll < 0.15) body = "\u00ff\u00fe garbage";
        else if (roll < 0.25) {
          const [doc, type] = HOSTILE_DOCUMENTS[Math.floor(r() * HOSTILE_DOCUMENTS.length)]!;
          body = doc;
          headers["content-type"] = type;
        } else body = JSON.stringify(mutateBody(route, r, o.validBody?.(route)));
      }
      if (r() < 0.15) {
        const target = `${trickPath(path, r)}${qs ? `?${qs}` : ""}`;
        const res = await rawRequest(baseUrl, target, { method: route.method, headers, body });
        requests++;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const where = `seed ${seed}: ${route.method} ${target.slice(0, 300)} -> ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        expect(res.text, where).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|\/work\//);
        // whichever service owns the raw prefix answers (or none, then the generic 404): JSON with `error`
        if (res.status >= 400) expect(typeof res.body?.error, where).toBe("string");
        o.onPathTrick?.(`${route.method} ${target}`, res.status);
        continue;
      }
      const url = `${baseUrl}${path}${qs ? `?${qs}` : ""}`;
      const res = await fetch(url, { method: route.method, headers, body });
      const text = await res.text();
      requests++;
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const where = `seed ${seed}: ${route.method} ${url.slice(0, 300)} body ${String(body).slice(0, 300)} -> ${res.status} ${text.slice(0, 300)}`;
      expect(res.status, where).toBeLessThan(500);
      expect(text, where).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|\/work\//);
      if (res.status >= 400) {
        let parsed: unknown;
        expect(() => (parsed = JSON.parse(text)), where).not.toThrow();
        o.errorShape(parsed, res.status, route);
      }
    }
  }
  return { requests, statuses };
}
