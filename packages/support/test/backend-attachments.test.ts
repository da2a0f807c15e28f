// Attachments on the GitHub and Slack backends, against the stand-ins that check every request against GitHub's REST
// description and Slack's Web API client: GitHub lists each file with a signed, expiring link that downloads the bytes
// over real HTTP without the agent token (and fails once expired or altered); Slack uploads each file into the thread
// with files.getUploadURLExternal, the upload URL and files.completeUploadExternal, after the text, retrying on 429.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Clock, manualClock } from "@mountkit/core";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSupportService, githubBackend, parseMetadata, slackBackend, stripMetadata } from "../src/index.js";
import { ghIds, issueMessage } from "../src/backends/github/mapping.js";
import { fakeGithub } from "./fakes/github.js";
import { loadGithubDescription } from "./fakes/github-openapi.js";
import { fakeSlack } from "./fakes/slack.js";
import { call } from "./fakes/streams.js";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
const TEXT = new TextEncoder().encode("error log: line 1\nline 2\n");
const LINK_SECRET = "attachment-link-secret-of-at-least-32-chars";
const cust = () => `cust_${crypto.randomUUID()}`;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(() => loadGithubDescription());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Svc = ReturnType<typeof createSupportService>;

/** A real HTTP server in front of `service.fetch`: the signed links are fetched as a browser would. */
async function serve(): Promise<{ url: string; use(s: Svc): void }> {
  let svc: Svc | undefined;
  const server: Server = createServer(async (req, res) => {
    const body = await svc!.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers as never }));
    res.writeHead(body.status, Object.fromEntries(body.headers));
    res.end(Buffer.from(await body.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, use: (s) => (svc = s) };
}

async function upload(s: Svc, product: string, customerId: string, name: string, bytes: Uint8Array) {
  const r = await s.fetch(
    new Request(`http://kit/api/conversations/attachments?productSlug=${product}&customerId=${customerId}&name=${name}`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: bytes as Uint8Array<ArrayBuffer>,
    }),
  );
  expect(r.status).toBe(200);
  return (await r.json()) as { id: string; name: string; contentType: string; size: number };
}

describe("GitHub backend: attachments", () => {
  async function setup(o: { clock?: Clock; embedImages?: boolean; links?: boolean } = {}) {
    const gh = await fakeGithub({ repo: "acme/support-inbox", botLogin: "mountkit-bot" });
    cleanups.push(async () => {
      await gh.close();
      expect(gh.violations).toEqual([]);
    });
    const http = await serve();
    const backend = githubBackend({
      repo: "acme/support-inbox",
      token: `ghp_files_${crypto.randomUUID()}`,
      webhookSecret: "whsec",
      apiUrl: gh.url,
      reconcileIntervalMs: 0,
      minWriteIntervalMs: 0,
      embedImages: o.embedImages,
    });
    const s = createSupportService({
      products: [{ slug: "gh", backend }],
      pruneIntervalMs: 0,
      limits: { rateLimit: 10_000 },
      agentToken: "agent-token",
      clock: o.clock,
      attachments: {
        sweepIntervalMs: 0,
        ...(o.links === false ? {} : { links: { secret: LINK_SECRET, publicUrl: `${http.url}/`, ttlMs: 3_600_000 } }),
      },
    });
    http.use(s);
    cleanups.push(() => s.dispose());
    return { gh, s, http };
  }
  const links = (body: string) => [...body.matchAll(/\]\((http[^)\s]+)\)/g)].map((m) => m[1]!);

  it("a message with two files: the comment lists both with links that download the bytes, and the customer's body is unchanged", async () => {
    const clock = manualClock(Date.now());
    const { gh, s, http } = await setup({ clock });
    const c = cust();
    const created = await call(s, "POST", "/api/conversations", { productSlug: "gh", customerId: c, message: "Help" });
    expect(created.status).toBe(200);
    const id = created.body.conversationId as string;
    const png = await upload(s, "gh", c, "shot.png", PNG);
    const txt = await upload(s, "gh", c, "log [1].txt", TEXT);
    const posted = await call(s, "POST", `/api/conversations/${id}/messages`, {
      productSlug: "gh",
      customerId: c,
      message: "Here are the @team files",
      attachments: [png.id, txt.id],
    });
    expect(posted.status).toBe(200);

    const comment = gh.comments.at(-1)!;
    expect(comment.body).toContain("**2 attachments**");
    expect(comment.body).toContain("shot.png");
    expect(comment.body).toContain("log \\[1\\].txt");
    expect(comment.body).toContain("image/png, 70 B");
    expect(comment.body).toContain(`text/plain, ${TEXT.length} B`);
    // the image is embedded (the link serves it inline), the text file only linked
    expect(comment.body).toMatch(/!\[shot\.png\]\(http/);
    const urls = [...new Set(links(comment.body))];
    expect(urls).toHaveLength(2);
    for (const u of urls) expect(u.startsWith(`${http.url}/agent/attachments/`)).toBe(true);
    // the hidden block stays last, so the comment is still read as the customer's
    expect(parseMetadata(comment.body)?.customerId).toBe(c);

    // the customer reads the message as written: no file list in interface A
    const detail = await call(s, "GET", `/api/conversations/${id}?productSlug=gh&customerId=${c}`);
    const last = detail.body.comments.at(-1);
    expect(stripMetadata(last.body)).toBe("Here are the @team files");
    expect(last.attachments.map((a: { id: string }) => a.id)).toEqual([png.id, txt.id]);

    // over real HTTP, without any token: the bytes, with the download headers
    const [pngUrl, txtUrl] = [urls.find((u) => u.includes(png.id))!, urls.find((u) => u.includes(txt.id))!];
    const r1 = await fetch(pngUrl);
    expect(r1.status).toBe(200);
    expect(r1.headers.get("content-type")).toBe("image/png");
    expect(r1.headers.get("content-disposition")).toMatch(/^inline/);
    expect(r1.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await r1.arrayBuffer())).toEqual(PNG);
    const r2 = await fetch(txtUrl);
    expect(r2.status).toBe(200);
    expect(r2.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(new Uint8Array(await r2.arrayBuffer())).toEqual(TEXT);

    // altered: another file's id with this signature, another expiry, a changed signature
    const swapped = pngUrl.replace(png.id, txt.id);
    const later = pngUrl.replace(/expires=(\d+)/, (_m, e) => `expires=${Number(e) + 3600}`);
    const flipped = pngUrl.replace(/signature=(.)/, (_m, ch) => `signature=${ch === "A" ? "B" : "A"}`);
    for (const bad of [swapped, later, flipped, pngUrl.replace(/&signature=[^&]+/, "")]) expect((await fetch(bad)).status, bad).toBe(401);
    // the bearer still works beside the links
    const bearer = await fetch(`${http.url}/agent/attachments/${txt.id}`, { headers: { authorization: "Bearer agent-token" } });
    expect(bearer.status).toBe(200);
    expect((await fetch(`${http.url}/agent/attachments/${txt.id}`)).status).toBe(401);

    // expired: an hour later (ttlMs) the same link answers 401
    clock.advance(3_600_000 + 1000);
    expect((await fetch(pngUrl)).status).toBe(401);
    expect((await fetch(txtUrl)).status).toBe(401);
  });

  it("the first message's files are listed in the issue body; reading the issue back removes the list", async () => {
    const { gh, s } = await setup({ embedImages: false });
    const c = cust();
    const png = await upload(s, "gh", c, "first.png", PNG);
    const created = await call(s, "POST", "/api/conversations", { productSlug: "gh", customerId: c, message: "See this", attachments: [png.id] });
    expect(created.status).toBe(200);
    const issue = [...gh.issues.values()].at(-1)!;
    expect(issue.body).toContain("**1 attachment**");
    expect(issue.body).toContain("[first.png](");
    expect(issue.body).not.toContain("![");
    // what the webhook and the poll read from the issue: the body the kit stored, list removed exactly
    const read = issueMessage(ghIds("t"), issue as never, "mountkit-bot", c);
    expect(read.isCustomer).toBe(true);
    const detail = await call(s, "GET", `/api/conversations/${created.body.conversationId}?productSlug=gh&customerId=${c}`);
    const first = detail.body.issue ?? detail.body.comments[0];
    expect(read.body).toBe(first.body);
    expect(stripMetadata(read.body)).toBe("See this");
    expect(first.attachments).toHaveLength(1);
  });

  it("without attachments.links the files are named with their ids, no link", async () => {
    const { gh, s } = await setup({ links: false });
    const c = cust();
    const txt = await upload(s, "gh", c, "notes.txt", TEXT);
    const created = await call(s, "POST", "/api/conversations", { productSlug: "gh", customerId: c, message: "Logs", attachments: [txt.id] });
    expect(created.status).toBe(200);
    const body = [...gh.issues.values()].at(-1)!.body!;
    expect(body).toContain(`notes.txt (text/plain, ${TEXT.length} B; id \`${txt.id}\`)`);
    expect(links(body)).toEqual([]);
  });

  it("refuses a link secret too short to be one", () => {
    expect(() =>
      createSupportService({ products: ["demo"], attachments: { links: { secret: "short", publicUrl: "https://x.example" }, sweepIntervalMs: 0 } }),
    ).toThrow(/at least 32/);
  });
});

describe("Slack backend: attachments", () => {
  async function setup(o: { links?: boolean } = {}) {
    const slack = await fakeSlack({ botUserId: "UBOT" });
    cleanups.push(async () => {
      await slack.close();
      // every Web API call is one Slack's client knows, with arguments its types allow, sent as a form
      expect(slack.violations).toEqual([]);
    });
    const backend = slackBackend({
      botToken: "xoxb-test",
      signingSecret: "slack-signing-secret",
      channel: "C0SUPPORT",
      apiUrl: slack.url,
      minWriteIntervalMs: 0,
      reconcileIntervalMs: 0,
      workerPollMs: 50,
      fileRetryBackoffMs: 50,
    });
    const s = createSupportService({
      products: [{ slug: "chat", backend }],
      pruneIntervalMs: 0,
      limits: { rateLimit: 10_000 },
      attachments: {
        sweepIntervalMs: 0,
        ...(o.links ? { links: { secret: LINK_SECRET, publicUrl: "https://support.example" } } : {}),
      },
    });
    cleanups.push(() => s.dispose());
    return { slack, backend, s };
  }
  const fileCalls = (received: string[]) =>
    received.filter((m) => m.startsWith("files.") || m.startsWith("upload/") || m === "chat.postMessage");

  it("a message with two files: the text first, then three calls per file in order into the thread", async () => {
    const { slack, backend, s } = await setup();
    const c = cust();
    const created = await call(s, "POST", "/api/conversations", { productSlug: "chat", customerId: c, message: "Hello" });
    expect(created.status).toBe(200);
    const root = slack.posted[0]!.ts;
    const png = await upload(s, "chat", c, "shot.png", PNG);
    const txt = await upload(s, "chat", c, "log.txt", TEXT);
    slack.received.length = 0;
    const posted = await call(s, "POST", `/api/conversations/${created.body.conversationId}/messages`, {
      productSlug: "chat",
      customerId: c,
      message: "Two files",
      attachments: [png.id, txt.id],
      clientMessageId: "m-2files",
    });
    expect(posted.status).toBe(200);
    await backend.idle();
    expect(fileCalls(slack.received).map((m) => m.replace(/^upload\/F\d+$/, "upload"))).toEqual([
      "chat.postMessage",
      "files.getUploadURLExternal",
      "upload",
      "files.completeUploadExternal",
      "files.getUploadURLExternal",
      "upload",
      "files.completeUploadExternal",
    ]);
    expect(slack.posted.at(-1)).toMatchObject({ text: "*Customer:* Two files", thread_ts: root });
    expect(slack.shared.map((f) => ({ title: f.title, filename: f.filename, channel: f.channel_id, thread: f.thread_ts }))).toEqual([
      { title: "shot.png", filename: "shot.png", channel: "C0SUPPORT", thread: root },
      { title: "log.txt", filename: "log.txt", channel: "C0SUPPORT", thread: root },
    ]);
    expect(new Uint8Array(slack.shared[0]!.bytes)).toEqual(PNG);
    expect(new Uint8Array(slack.shared[1]!.bytes)).toEqual(TEXT);
    // a retry after a lost answer is the same message: nothing is posted or uploaded again
    const again = await call(s, "POST", `/api/conversations/${created.body.conversationId}/messages`, {
      productSlug: "chat",
      customerId: c,
      message: "Two files",
      attachments: [png.id, txt.id],
      clientMessageId: "m-2files",
    });
    expect(again.body.id).toBe(posted.body.id);
    await backend.idle();
    expect(slack.shared).toHaveLength(2);
    expect(slack.posted.filter((p) => p.text === "*Customer:* Two files")).toHaveLength(1);
  });

  it("the first message's files go into the new thread; a 429 on each step is waited out and retried", async () => {
    const { slack, backend, s } = await setup();
    const c = cust();
    const png = await upload(s, "chat", c, "first.png", PNG);
    slack.rateLimitMethod("files.getUploadURLExternal", 1);
    slack.rateLimitMethod("upload", 1);
    slack.rateLimitMethod("files.completeUploadExternal", 1);
    const started = Date.now();
    const created = await call(s, "POST", "/api/conversations", { productSlug: "chat", customerId: c, message: "Look", attachments: [png.id] });
    expect(created.status).toBe(200);
    await backend.idle();
    const root = slack.posted[0]!.ts;
    expect(slack.shared).toHaveLength(1);
    expect(slack.shared[0]).toMatchObject({ title: "first.png", thread_ts: root, channel_id: "C0SUPPORT" });
    const statuses = slack.calls.filter((x) => x.method.startsWith("files.") || x.method.startsWith("upload/")).map((x) => x.status);
    expect(statuses).toEqual([429, 200, 429, 200, 429, 200]);
    // each 429 said Retry-After: 1
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  });

  it("an upload that keeps failing leaves the text posted and puts a line with the file's signed link in the thread", async () => {
    const { slack, backend, s } = await setup({ links: true });
    const c = cust();
    const created = await call(s, "POST", "/api/conversations", { productSlug: "chat", customerId: c, message: "Hi" });
    const txt = await upload(s, "chat", c, "log.txt", TEXT);
    // every attempt's completeUploadExternal is refused (the bot is not in the channel any more)
    slack.refuseMethod("files.completeUploadExternal", "not_in_channel");
    const posted = await call(s, "POST", `/api/conversations/${created.body.conversationId}/messages`, {
      productSlug: "chat",
      customerId: c,
      message: "The log",
      attachments: [txt.id],
    });
    expect(posted.status).toBe(200);
    expect(slack.posted.some((p) => p.text === "*Customer:* The log")).toBe(true);
    await backend.idle();
    expect(slack.shared).toEqual([]);
    expect(slack.received.filter((m) => m === "files.completeUploadExternal")).toHaveLength(4);
    const note = slack.posted.at(-1)!;
    expect(note.thread_ts).toBe(slack.posted[0]!.ts);
    expect(note.text).toMatch(/log\.txt .*could not be uploaded here: <https:\/\/support\.example\/agent\/attachments\/[^|]+\?expires=\d+&signature=[^|]+\|download it>/);
    // the customer's message is there as written
    const detail = await call(s, "GET", `/api/conversations/${created.body.conversationId}?productSlug=chat&customerId=${c}`);
    expect(stripMetadata(detail.body.comments.at(-1).body)).toBe("The log");
  });
});
