// Matches a method and path against a route table: static segments first, `:param` segments capture.
import type { HttpMethod, Route } from "./route.js";

interface Compiled {
  route: Route;
  segments: Array<{ param: string } | { literal: string }>;
  staticCount: number;
}

export type RouteMatch =
  | { kind: "match"; route: Route; params: Record<string, string> }
  | { kind: "method_not_allowed"; allow: HttpMethod[] }
  /** A route's shape matched but a parameter is not valid percent-encoding. */
  | { kind: "bad_encoding" }
  | { kind: "none" };

const split = (path: string): string[] => {
  const parts = path.split("/");
  // keep a trailing empty segment so `/x/` and `/x` stay distinct
  return parts.slice(1);
};

export function compileRoutes(routes: readonly Route[]) {
  const compiled: Compiled[] = routes.map((route) => {
    const segments = split(route.path).map((s) => (s.startsWith(":") ? { param: s.slice(1) } : { literal: s }));
    return { route, segments, staticCount: segments.filter((s) => "literal" in s).length };
  });
  // more literal segments win over params at equal length
  compiled.sort((a, b) => b.staticCount - a.staticCount);

  // Fully literal routes, by path then method. A literal route outranks every parameterised route of
  // its length, so when one matches path and method it is the answer the scan below would give.
  const literal = new Map<string, Map<string, Route>>();
  for (const c of compiled) {
    if (c.staticCount !== c.segments.length) continue;
    const byMethod = literal.get(c.route.path) ?? new Map<string, Route>();
    if (!byMethod.has(c.route.method)) byMethod.set(c.route.method, c.route);
    literal.set(c.route.path, byMethod);
  }
  // candidates by segment count, in priority order
  const byLength = new Map<number, Compiled[]>();
  for (const c of compiled) {
    const list = byLength.get(c.segments.length) ?? [];
    list.push(c);
    byLength.set(c.segments.length, list);
  }

  return function match(method: string, path: string): RouteMatch {
    const exact = literal.get(path);
    if (exact) {
      const route = exact.get(method) ?? (method === "HEAD" ? exact.get("GET") : undefined);
      if (route) return { kind: "match", route, params: {} };
    }
    const parts = split(path);
    let allow: Set<HttpMethod> | undefined;
    let badEncoding = false;
    for (const c of byLength.get(parts.length) ?? []) {
      let params: Record<string, string> | undefined = {};
      for (let i = 0; i < parts.length; i++) {
        const seg = c.segments[i]!;
        const part = parts[i]!;
        if ("literal" in seg) {
          if (seg.literal !== part) {
            params = undefined;
            break;
          }
        } else {
          if (part === "") {
            params = undefined;
            break;
          }
          try {
            params[seg.param] = decodeURIComponent(part);
          } catch {
            badEncoding = true;
            params = undefined;
            break;
          }
        }
      }
      if (!params) continue;
      if (c.route.method === method || (method === "HEAD" && c.route.method === "GET")) return { kind: "match", route: c.route, params };
      (allow ??= new Set()).add(c.route.method);
    }
    if (allow) return { kind: "method_not_allowed", allow: [...allow] };
    return badEncoding ? { kind: "bad_encoding" } : { kind: "none" };
  };
}
