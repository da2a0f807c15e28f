// The operator's routes: GET /healthz (the process answers), GET /readyz (the database answers within a short
// deadline and every migration is applied; 503 with the kit's error body otherwise) and GET /metrics (Prometheus).
import { coreError, json, type Route, route, text } from "@mountkit/core";
import { allMigrations, type Storage } from "@mountkit/sql";

/** How long /readyz waits for the database: an orchestrator's probe has its own timeout, usually a few seconds. */
export const READY_TIMEOUT_MS = 2000;

/** Migrations not yet applied to the database (by set), or why the database did not answer. */
export async function readiness(storage: Storage, timeoutMs = READY_TIMEOUT_MS): Promise<{ pending: string[] } | { error: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const rows = await Promise.race([
      storage.db.kysely.selectFrom("mountkit_migrations").select(["set_name", "version"]).execute(),
      deadline,
    ]);
    const applied = new Map<string, Set<number>>();
    for (const r of rows as Array<{ set_name: string; version: number | string }>) {
      const set = applied.get(r.set_name) ?? new Set<number>();
      set.add(Number(r.version));
      applied.set(r.set_name, set);
    }
    const pending = allMigrations.flatMap((s) =>
      s.migrations.filter((m) => !applied.get(s.name)?.has(m.version)).map((m) => `${s.name} ${m.version} ${m.name}`),
    );
    return { pending };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

export function opsRoutes(o: { storage?: Storage; prometheus?: () => Promise<string> }): Route[] {
  const routes: Route[] = [
    route({ method: "GET", path: "/healthz", internal: true, handler: () => json(200, { status: "ok" }) }),
    route({
      method: "GET",
      path: "/readyz",
      internal: true,
      async handler() {
        if (!o.storage) return json(200, { status: "ready", database: "none" });
        const r = await readiness(o.storage);
        if ("error" in r)
          throw coreError("service_unavailable", {
            message: "database not reachable",
            details: { reason: r.error },
            headers: { "retry-after": "5" },
          });
        if (r.pending.length)
          throw coreError("service_unavailable", {
            message: "migrations not applied",
            details: { pending: r.pending },
            headers: { "retry-after": "5" },
          });
        return json(200, { status: "ready", database: o.storage.db.dialect });
      },
    }),
  ];
  const prometheus = o.prometheus;
  if (prometheus)
    routes.push(
      route({
        method: "GET",
        path: "/metrics",
        internal: true,
        handler: async () => text(200, await prometheus(), "text/plain; version=0.0.4; charset=utf-8", { "cache-control": "no-store" }),
      }),
    );
  return routes;
}
