// A throwaway PostgreSQL cluster for tests: initdb into a temp dir, pg_ctl start on a free loopback port,
// remove everything on stop. As root it runs the server as the unprivileged user `mountkit_pg`
// (initdb refuses root). Run directly (`npx tsx test/pg-cluster.ts`) to keep one up by hand.
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export interface PgCluster {
  /** Superuser URL of the `postgres` database. */
  url: string;
  dir: string;
  stop(): Promise<void>;
}

const PG_USER = "mountkit_pg";

/** The folder holding initdb/pg_ctl: $PG_BIN, the newest /usr/lib/postgresql/<v>/bin, or PATH. */
export function findPgBin(): string | null {
  const has = (dir: string) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"));
  if (process.env.PG_BIN) return has(process.env.PG_BIN) ? process.env.PG_BIN : null;
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(join(root, v, "bin"))) return join(root, v, "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const found = which.status === 0 ? which.stdout.trim() : "";
  return found ? found.replace(/\/initdb$/, "") : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function ensureUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, PG_USER], { encoding: "utf8" }).trim());
  if (spawnSync("id", [PG_USER]).status !== 0) {
    execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER], { stdio: "pipe" });
  }
  return { uid: id("-u"), gid: id("-g") };
}

export interface PgClusterOptions {
  /**
   * Keep fsync on (benchmarks). Commits still do not wait for their WAL flush (synchronous_commit=off),
   * the same promise SQLite's synchronous=NORMAL makes: a power loss may drop the last commits, never
   * corrupt. Tests leave this off: a thrown-away cluster needs no durability.
   */
  durable?: boolean;
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error("no PostgreSQL binaries (initdb, pg_ctl) found: set PG_BIN or install postgresql");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "mountkit-pg-"));
  const data = join(dir, "data");
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot ? ["runuser", ["-u", PG_USER, "--", join(bin, cmd), ...args]] : [join(bin, cmd), args];
    const r = spawnSync(file, argv as string[], { encoding: "utf8", cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  if (asRoot) {
    const { uid, gid } = ensureUser();
    chownSync(dir, uid, gid);
  }
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const opts = [
        `-p ${port}`,
        `-k ${dir}`,
        "-c listen_addresses=127.0.0.1",
        "-c max_connections=300",
        "-c synchronous_commit=off",
        ...(options.durable ? [] : ["-c fsync=off", "-c full_page_writes=off"]),
      ].join(" ");
      try {
        run("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"]);
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
      }
    }
    let stopped = false;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      dir,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const cluster = await startPgCluster();
  process.stdout.write(`MOUNTKIT_TEST_PG_URL=${cluster.url}\n(data in ${cluster.dir}; Ctrl-C stops and removes it)\n`);
  const stop = () => void cluster.stop().finally(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  setInterval(() => {}, 1 << 30);
}
