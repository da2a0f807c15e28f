// Vitest global setup: one throwaway PostgreSQL cluster for the whole run, exported to every test worker
// as MOUNTKIT_TEST_PG_URL. An externally provided MOUNTKIT_TEST_PG_URL is used as is. Without PostgreSQL
// binaries the PostgreSQL suites skip with a reason, except under CI=true where that is an error.
import { findPgBin, startPgCluster } from "./pg-cluster.js";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.MOUNTKIT_TEST_PG_URL) return undefined;
  const ci = process.env.CI === "true" || process.env.CI === "1";
  if (process.env.MOUNTKIT_TEST_PG === "0" && !ci) {
    process.env.MOUNTKIT_TEST_PG_SKIP = "MOUNTKIT_TEST_PG=0";
    return undefined;
  }
  if (!findPgBin()) {
    const reason = "no PostgreSQL binaries (initdb/pg_ctl) on this machine; set PG_BIN or MOUNTKIT_TEST_PG_URL";
    if (ci) throw new Error(`CI=true requires the PostgreSQL suites: ${reason}`);
    process.env.MOUNTKIT_TEST_PG_SKIP = reason;
    console.log(`[mountkit] PostgreSQL suites will be skipped: ${reason}`);
    return undefined;
  }
  const started = Date.now();
  const cluster = await startPgCluster();
  process.env.MOUNTKIT_TEST_PG_URL = cluster.url;
  console.log(`[mountkit] throwaway PostgreSQL cluster at ${cluster.url} (${Date.now() - started} ms)`);
  return () => cluster.stop();
}
