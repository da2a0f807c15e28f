// The example server's attachment variables (SUPPORT_ATTACHMENT_*): each limit reaches its `attachments` option, a
// wrong value stops the start naming the variable, and the bytes go to files under the data directory on SQLite (the
// default), to the database with SUPPORT_ATTACHMENT_STORE=sql, and survive a restart either way.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@mountkit/core";
import { openStorage, type Storage } from "@mountkit/sql";
import { afterAll, describe, expect, it } from "vitest";
import {
  ATTACHMENT_LIMIT_VARIABLES,
  attachmentLimitsFromEnv,
  attachmentLinksFromEnv,
  attachmentStoreKind,
  attachmentsFromEnv,
} from "../src/services/attachments.js";
import { supportFromEnv } from "../src/services/support.js";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const CUSTOMER = `cust_${crypto.randomUUID()}`;
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), "mk-att-env-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("attachment limits from the environment", () => {
  it("each SUPPORT_ATTACHMENT_* limit sets the option of the same name; unset ones keep the defaults", () => {
    expect(attachmentLimitsFromEnv({})).toEqual({});
    expect(
      attachmentLimitsFromEnv({
        SUPPORT_ATTACHMENT_MAX_BYTES: "1048576",
        SUPPORT_ATTACHMENT_MAX_PER_MESSAGE: "3",
        SUPPORT_ATTACHMENT_MAX_BYTES_PER_MESSAGE: " 2097152 ",
        SUPPORT_ATTACHMENT_MAX_PER_CUSTOMER_PER_DAY: "20",
        SUPPORT_ATTACHMENT_MAX_BYTES_PER_CUSTOMER_PER_DAY: "52428800",
        SUPPORT_ATTACHMENT_PENDING_TTL_MS: "600000",
      }),
    ).toEqual({
      maxBytes: 1048576,
      maxPerMessage: 3,
      maxBytesPerMessage: 2097152,
      maxPerCustomerPerDay: 20,
      maxBytesPerCustomerPerDay: 52428800,
      pendingTtlMs: 600000,
    });
  });

  it("a value that is not a positive integer stops the start, naming the variable and the value", () => {
    for (const { name } of Object.values(ATTACHMENT_LIMIT_VARIABLES))
      for (const bad of ["0", "-1", "1.5", "10MB", "1e6", "abc", "99999999999999999999"])
        expect(() => attachmentLimitsFromEnv({ [name]: bad }), `${name}=${bad}`).toThrow(
          new RegExp(`^${name} must be a positive integer .*${bad.replace(".", "\\.")}`),
        );
  });

  it("the limits reach the service: a file over SUPPORT_ATTACHMENT_MAX_BYTES answers 413", async () => {
    const s = await supportFromEnv({ SUPPORT_ATTACHMENT_MAX_BYTES: String(PNG.byteLength - 1) }, { logger: silentLogger });
    try {
      const r = await s.fetch(
        new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${CUSTOMER}&name=a.png`, { method: "POST", body: PNG, headers: { "content-type": "image/png" } }),
      );
      expect(r.status).toBe(413);
      expect((s as unknown as { attachments: { limits: { maxBytes: number } } }).attachments.limits.maxBytes).toBe(PNG.byteLength - 1);
    } finally {
      await s.dispose();
    }
  });
});

describe("the attachment byte budget from the environment", () => {
  it("SUPPORT_ATTACHMENT_MAX_BYTES_PER_CUSTOMER_PER_DAY reaches the service: an upload past it answers 429", async () => {
    const s = await supportFromEnv({ SUPPORT_ATTACHMENT_MAX_BYTES_PER_CUSTOMER_PER_DAY: String(PNG.byteLength * 2) }, { logger: silentLogger });
    try {
      const up = () =>
        s.fetch(
          new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${CUSTOMER}&name=a.png`, { method: "POST", body: PNG, headers: { "content-type": "image/png" } }),
        );
      expect((await up()).status).toBe(200);
      expect((await up()).status).toBe(200);
      const r = await up();
      expect(r.status).toBe(429);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((s as unknown as { attachments: { limits: { maxBytesPerCustomerPerDay: number } } }).attachments.limits.maxBytesPerCustomerPerDay).toBe(
        PNG.byteLength * 2,
      );
    } finally {
      await s.dispose();
    }
  });
});

describe("the attachment blob store from the environment", () => {
  it("defaults to files beside SQLite (and without a database) and to the database on PostgreSQL", () => {
    expect(attachmentStoreKind({}, "sqlite")).toBe("fs");
    expect(attachmentStoreKind({}, undefined)).toBe("fs");
    expect(attachmentStoreKind({}, "postgres")).toBe("sql");
    expect(attachmentStoreKind({ SUPPORT_ATTACHMENT_STORE: "SQL" }, "sqlite")).toBe("sql");
    expect(attachmentStoreKind({ SUPPORT_ATTACHMENT_STORE: "fs" }, "postgres")).toBe("fs");
  });

  it("an unknown store, or sql without a database, stops the start with what to write instead", () => {
    expect(() => attachmentStoreKind({ SUPPORT_ATTACHMENT_STORE: "s3" }, "sqlite")).toThrow(
      'SUPPORT_ATTACHMENT_STORE must be fs (files under the data directory) or sql (the database), not "s3"',
    );
    expect(() => attachmentStoreKind({ SUPPORT_ATTACHMENT_STORE: "sql" }, undefined)).toThrow(/needs the server's database/);
  });

  it("a directory it cannot create stops the start naming SUPPORT_ATTACHMENT_DIR", async () => {
    const file = join(freshDir(), "file");
    writeFileSync(file, "");
    const env = { SUPPORT_ATTACHMENT_STORE: "fs", SUPPORT_ATTACHMENT_DIR: join(file, "below") };
    await expect(attachmentsFromEnv(env, { logger: silentLogger })).rejects.toThrow(/^SUPPORT_ATTACHMENT_DIR: cannot use .*ENOTDIR/);
    await expect(supportFromEnv(env, { logger: silentLogger })).rejects.toThrow(/^SUPPORT_ATTACHMENT_DIR/);
  });

  /** Uploads a PNG through interface A on a service over `storage`; answers its id. */
  async function upload(env: NodeJS.ProcessEnv, storage: Storage): Promise<string> {
    const attachments = await attachmentsFromEnv(env, { storage, logger: silentLogger });
    const s = await supportFromEnv(env, { logger: silentLogger, store: storage.support, limiter: storage.limiter, attachments });
    try {
      const r = await s.fetch(
        new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${CUSTOMER}&name=a.png`, { method: "POST", body: PNG, headers: { "content-type": "image/png" } }),
      );
      expect(r.status, await r.clone().text()).toBe(200);
      return ((await r.json()) as { id: string }).id;
    } finally {
      await s.dispose();
    }
  }

  /** Downloads it through a new service on a new connection (a restarted server). */
  async function download(env: NodeJS.ProcessEnv, dataDir: string, id: string): Promise<Uint8Array> {
    const storage = await openStorage({ dataDir, logger: silentLogger });
    try {
      const attachments = await attachmentsFromEnv(env, { storage, logger: silentLogger });
      const s = await supportFromEnv(env, { logger: silentLogger, store: storage.support, limiter: storage.limiter, attachments });
      try {
        const r = await s.fetch(new Request(`http://x/api/conversations/attachments/${id}?productSlug=demo&customerId=${CUSTOMER}`));
        expect(r.status).toBe(200);
        return new Uint8Array(await r.arrayBuffer());
      } finally {
        await s.dispose();
      }
    } finally {
      await storage.close();
    }
  }

  it("on SQLite the bytes are files under <DATA_DIR>/support-attachments, named by the id, and a restart serves them", async () => {
    const dataDir = freshDir();
    const env = { DATA_DIR: dataDir };
    const storage = await openStorage({ dataDir, logger: silentLogger });
    let id: string;
    try {
      id = await upload(env, storage);
      const [row] = await storage.db.kysely
        .selectFrom("support_blobs" as never)
        .select("key" as never)
        .execute();
      expect(row, "no bytes in the database").toBeUndefined();
    } finally {
      await storage.close();
    }
    const files = readdirSync(join(dataDir, "support-attachments"), { recursive: true }).map(String);
    expect(files.some((f) => f.endsWith(id))).toBe(true);
    expect(await download(env, dataDir, id)).toEqual(PNG);
  });

  it("SUPPORT_ATTACHMENT_DIR moves the files; SUPPORT_ATTACHMENT_STORE=sql keeps them in the database and makes no directory", async () => {
    const dataDir = freshDir();
    const elsewhere = join(freshDir(), "files");
    const moved = { DATA_DIR: dataDir, SUPPORT_ATTACHMENT_DIR: elsewhere };
    const inDb = { DATA_DIR: dataDir, SUPPORT_ATTACHMENT_STORE: "sql" };
    const storage = await openStorage({ dataDir, logger: silentLogger });
    let a: string;
    let b: string;
    try {
      a = await upload(moved, storage);
      b = await upload(inDb, storage);
      const keys = await storage.db.kysely
        .selectFrom("support_blobs" as never)
        .select("key" as never)
        .execute();
      expect(keys).toEqual([{ key: b }]);
    } finally {
      await storage.close();
    }
    expect(existsSync(join(dataDir, "support-attachments"))).toBe(false);
    expect(readdirSync(elsewhere, { recursive: true }).map(String).filter((f) => f.endsWith(a))).toHaveLength(1);
    expect(await download(moved, dataDir, a)).toEqual(PNG);
    expect(await download(inDb, dataDir, b)).toEqual(PNG);
  });
});

describe("signed attachment links from the environment", () => {
  const SECRET = "link-secret-link-secret-link-secret-0123";
  it("off without SUPPORT_ATTACHMENT_LINK_SECRET; with it, the URL and the TTL reach attachments.links", () => {
    expect(attachmentLinksFromEnv({})).toBeUndefined();
    expect(
      attachmentLinksFromEnv({ SUPPORT_ATTACHMENT_LINK_SECRET: SECRET, SUPPORT_ATTACHMENT_LINK_URL: "https://desk.example.com/support" }),
    ).toEqual({ secret: SECRET, publicUrl: "https://desk.example.com/support" });
    expect(
      attachmentLinksFromEnv({
        SUPPORT_ATTACHMENT_LINK_SECRET: SECRET,
        SUPPORT_ATTACHMENT_LINK_URL: "https://desk.example.com/support",
        SUPPORT_ATTACHMENT_LINK_TTL_MS: "86400000",
      }),
    ).toEqual({ secret: SECRET, publicUrl: "https://desk.example.com/support", ttlMs: 86_400_000 });
  });

  it("a secret without its URL, a URL or TTL without a secret, or a wrong TTL stops the start naming the variable", () => {
    expect(() => attachmentLinksFromEnv({ SUPPORT_ATTACHMENT_LINK_SECRET: SECRET })).toThrow(/needs SUPPORT_ATTACHMENT_LINK_URL/);
    expect(() => attachmentLinksFromEnv({ SUPPORT_ATTACHMENT_LINK_URL: "https://x.example" })).toThrow(/need SUPPORT_ATTACHMENT_LINK_SECRET/);
    for (const bad of ["0", "-5", "1.5", "30d"])
      expect(() =>
        attachmentLinksFromEnv({
          SUPPORT_ATTACHMENT_LINK_SECRET: SECRET,
          SUPPORT_ATTACHMENT_LINK_URL: "https://x.example",
          SUPPORT_ATTACHMENT_LINK_TTL_MS: bad,
        }),
      ).toThrow(/^SUPPORT_ATTACHMENT_LINK_TTL_MS must be a positive integer/);
  });

  it("a short secret stops the start; a configured link downloads the file without the agent token, and no other", async () => {
    const env = { SUPPORT_ATTACHMENT_LINK_URL: "https://desk.example.com/support" };
    await expect(supportFromEnv({ ...env, SUPPORT_ATTACHMENT_LINK_SECRET: "short" }, { logger: silentLogger })).rejects.toThrow(
      /secret must be at least 32 characters/,
    );
    const s = await supportFromEnv({ ...env, SUPPORT_ATTACHMENT_LINK_SECRET: SECRET }, { logger: silentLogger });
    try {
      const up = await s.fetch(
        new Request(`http://x/api/conversations/attachments?productSlug=demo&customerId=${CUSTOMER}&name=a.png`, {
          method: "POST",
          body: PNG,
          headers: { "content-type": "image/png" },
        }),
      );
      expect(up.status).toBe(200);
      const { id } = (await up.json()) as { id: string };
      const links = (s as unknown as { attachments: { links?: { url(ref: { id: string }): Promise<string> } } }).attachments.links;
      const link = new URL(await links!.url({ id }));
      expect(link.href.startsWith(`https://desk.example.com/support/agent/attachments/${id}?`)).toBe(true);
      const get = (query: string) => s.fetch(new Request(`http://x/agent/attachments/${id}${query}`));
      const ok = await get(link.search);
      expect(ok.status).toBe(200);
      expect(new Uint8Array(await ok.arrayBuffer())).toEqual(PNG);
      // the signature's first character changed (to "A" it would be the same link for one signature in 64)
      const tampered = link.search.replace(/signature=(.)/, (_m, ch: string) => `signature=${ch === "A" ? "B" : "A"}`);
      expect(tampered).not.toBe(link.search);
      expect((await get(tampered)).status).toBe(401);
      expect((await get("")).status).toBe(401);
    } finally {
      await s.dispose();
    }
  });
});
