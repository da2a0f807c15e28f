// GitHub's default webhook delivery (form-encoded, a `payload` field) and a JSON one reach the GitHub backend
// through every adapter on a real socket, signatures checked over the bytes as sent; a stand-in GitHub that
// validates requests against GitHub's OpenAPI description plays the repository.
import { createHmac } from "node:crypto";
import type { Service } from "@mountkit/core";
import { createSupportService, githubBackend } from "@mountkit/support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fakeGithub } from "../packages/support/test/fakes/github.js";
import { loadGithubDescription } from "../packages/support/test/fakes/github-openapi.js";
import { githubDelivery } from "../packages/support/test/fakes/github-webhooks.js";
import { call, forEachAdapter } from "./harness.js";

const REPO = "acme/webhook-inbox";
const SECRET = "whsec-adapters";
let gh: Awaited<ReturnType<typeof fakeGithub>>;

beforeAll(async () => {
  loadGithubDescription();
  gh = await fakeGithub({ repo: REPO, botLogin: "kit-bot" });
}, 60_000);
afterAll(async () => {
  await gh?.close();
  expect(gh.violations).toEqual([]);
});

function make(): Service[] {
  const backend = githubBackend({
    repo: REPO,
    token: `ghp_adapters_${crypto.randomUUID()}`,
    webhookSecret: SECRET,
    // the stand-in starts in beforeAll, which runs before the adapters' own hooks
    apiUrl: gh.url,
    reconcileIntervalMs: 0,
    minWriteIntervalMs: 0,
  });
  return [createSupportService({ products: [{ slug: "gh", backend }], pruneIntervalMs: 0, limits: { rateLimit: 10_000 } })];
}

for (const hostJsonParser of [false, true]) {
  forEachAdapter(
    `GitHub webhooks in both content types${hostJsonParser ? " (express.json() first)" : ""}`,
    make,
    (t) => {
      it("accepts form-encoded and JSON deliveries, refuses a bad signature on either", async () => {
        const customerId = `cust_${crypto.randomUUID()}`;
        const created = await call(`${t.url}/api/conversations`, { body: { productSlug: "gh", customerId, message: "Help" } });
        expect(created.status).toBe(200);
        const id = created.body.conversationId as string;
        const n = Number(/_(\d+)$/.exec(id)![1]);
        for (const form of [true, false]) {
          const cm = gh.agentComment(n, "octo-agent", `answer as ${form ? "form" : "json"} & <stuff>`);
          const json = JSON.stringify(
            githubDelivery("issue_comment", { action: "created", issue: gh.issueJson(n), comment: gh.commentJson(cm) }, REPO),
          );
          const raw = form ? new URLSearchParams({ payload: json }).toString() : json;
          const headers = (secret: string) => ({
            "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
            "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`,
            "x-github-event": "issue_comment",
            "x-github-delivery": crypto.randomUUID(),
          });
          expect((await call(`${t.url}/agent/webhooks/github`, { rawBody: raw, headers: headers("wrong") })).status).toBe(401);
          const r = await call(`${t.url}/agent/webhooks/github`, { rawBody: raw, headers: headers(SECRET) });
          expect(r.status, r.text).toBe(200);
        }
        const d = await call(`${t.url}/api/conversations/${id}?productSlug=gh&customerId=${customerId}`);
        expect(d.body.comments.map((c: { body: string }) => c.body)).toEqual(["answer as form & <stuff>", "answer as json & <stuff>"]);
      });
    },
    { hostJsonParser },
  );
}
