// The memory explorer in a real browser, served by the example server's memory service under Express,
// Fastify and fetch: a supersession on the graph, the asOf slider moved across it, invalidation with a
// reason, recall, playbook markdown rendered without raw HTML, brain isolation, axe, screenshots.
import type { Service } from "@mountkit/core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, listen, type Running } from "../servers.js";
import { memoryFromEnv } from "../../examples/server/src/services/memory.js";
import { call } from "../harness.js";
import { findChromium, launchChromium, screenshots } from "./browser.js";
import { accessibilityViolationsUnderCsp } from "./csp-axe.js";

const KEY_A = "mk_explorer_brain_a_0123456789";
const KEY_B = "mk_explorer_brain_b_0123456789";
const chromium = findChromium();
const describeBrowser = "path" in chromium ? describe : describe.skip;
if ("skip" in chromium) console.log(`[mountkit] browser tests skipped: ${chromium.skip}`);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

interface GraphEdge {
  id: string;
  fact: string;
  state: "valid" | "ended";
}

// skipped only where no Chromium is installed (the reason is printed above); CI=true makes that an error
describeBrowser("memory explorer in Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium((chromium as { path: string }).path);
  });
  afterAll(async () => {
    await browser?.close();
  });

  FRAMEWORKS.forEach((framework, index) => {
    describe(framework, () => {
      let running: Running;
      let memory: Service;
      let context: BrowserContext;
      let page: Page;
      const ids: Record<string, string> = {};
      const cspErrors: string[] = [];

      const api = (path: string, key = KEY_A, body?: unknown) =>
        call(`${running.url}${path}`, {
          headers: { authorization: `Bearer ${key}` },
          ...(body === undefined ? {} : { method: "POST", body }),
        });
      // extraction runs on a queue: an episode is asserted on only once the API says it is done
      async function ingest(content: string, extra: Record<string, unknown> = {}, key = KEY_A) {
        const r = await api("/v1/episodes", key, { content, ...extra });
        expect(r.status).toBe(202);
        for (let i = 0; i < 600; i++) {
          const e = await api(`/v1/episodes/${r.body.id}`, key);
          if (e.body.status === "done") return e.body as { id: string; edgeIds: string[] };
          expect(e.body.status).not.toBe("failed");
          await new Promise((res) => setTimeout(res, 25));
        }
        throw new Error(`extraction of "${content}" did not finish`);
      }
      const explorer = () => page.locator("mountkit-memory-explorer");
      // the fact sentences listed as valid at the sliders' point (not their metadata or end reasons)
      const validFacts = async () =>
        (await explorer().getByRole("list", { name: "Facts valid at this point" }).locator(".fact-text").allInnerTexts()).join("\n");
      const graphEdges = () => explorer().evaluate((el) => (el as unknown as { graphEdges: GraphEdge[] }).graphEdges);
      const stateOf = async (id: string) => (await graphEdges()).find((e) => e.id === id)?.state;

      beforeAll(async () => {
        memory = await memoryFromEnv({ MEMORY_API_KEYS: `${KEY_A}=explorer-a,${KEY_B}=explorer-b` }, { logger: silent });
        running = await listen(framework, [memory]);
        ids.aperture = (await ingest("Lara works at Aperture.", { occurredAt: "2024-01-10T00:00:00Z" })).edgeIds[0]!;
        ids.blackMesa = (await ingest("Lara works at Black Mesa.", { occurredAt: "2024-06-01T00:00:00Z" })).edgeIds[0]!;
        ids.seattle = (await ingest("Gordon Freeman lives in Seattle.", { occurredAt: "2024-02-01T00:00:00Z" })).edgeIds[0]!;
        await ingest("Deploys need a green build. <img src=x onerror=\"document.title='pwned'\"> Ask Alyx first.", {
          metadata: { playbook: "release" },
        });
        await ingest("Lara works at Umbrella.", {}, KEY_B);
        context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        context.setDefaultTimeout(15_000);
        page = await context.newPage();
        page.on("console", (m) => {
          if (m.type() === "error" && /Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
        });
      });
      afterAll(async () => {
        await context?.close();
        await running?.close();
        await memory?.dispose();
      });

      it("serves the page under the memory service's paths, with no key, and its script", async () => {
        const shell = await fetch(`${running.url}/v1/explorer/`);
        expect(shell.status).toBe(200);
        expect(shell.headers.get("content-security-policy")).toContain("default-src 'self'");
        expect(await shell.text()).toContain("<mountkit-memory-explorer>");
        const js = await fetch(`${running.url}/v1/explorer/app.js`, { headers: { "accept-encoding": "identity" } });
        expect(js.status).toBe(200);
        const text = await js.text();
        expect(text).toContain("mountkit-memory-explorer");
        const { gzipSync } = await import("node:zlib");
        console.log(`[explorer ${framework}] bundle ${text.length} bytes minified, ${gzipSync(text).length} gzipped`);
        // the page is not an API route: absent from the OpenAPI document
        const doc = await fetch(`${running.url}/openapi.yaml`);
        expect(await doc.text()).not.toContain("/v1/explorer");
      });

      it("refuses a wrong key in the page and opens the brain with the right one", async () => {
        await page.goto(`${running.url}/v1/explorer/`);
        await explorer().getByLabel("API key of a brain").fill("mk_not_a_key_0123456789");
        await explorer().getByRole("button", { name: "Open" }).click();
        await expect.poll(() => explorer().getByRole("alert").innerText()).toContain("not accepted");
        await explorer().getByLabel("API key of a brain").fill(KEY_A);
        await explorer().getByRole("button", { name: "Open" }).click();
        await expect.poll(() => validFacts()).toContain("Black Mesa");
        expect(await page.evaluate(() => sessionStorage.getItem("mountkit.memory.key"))).toBe(KEY_A);
        // episodes with their extraction status; another brain's episode is nowhere
        const episodes = await explorer().getByRole("list", { name: "Episodes" }).innerText();
        expect(episodes).toContain("Lara works at Aperture.");
        expect(episodes.match(/\bdone\b/g)?.length).toBe(4);
        expect(await explorer().innerText()).not.toContain("Umbrella");
      });

      it("shows the supersession on the graph, and the asOf slider moved across it changes which fact is valid", async () => {
        // now: the newer fact is valid, the older one ended (drawn dashed) with a reason naming the new edge
        await expect.poll(() => stateOf(ids.blackMesa!)).toBe("valid");
        expect(await stateOf(ids.aperture!)).toBe("ended");
        expect(await validFacts()).not.toContain("Aperture");
        const old = await api(`/v1/edges/${ids.aperture}`);
        expect(old.body.tInvalid).toBe("2024-06-01T00:00:00.000Z");
        const slider = explorer().getByRole("slider", { name: "Valid at (asOf)" });
        await slider.focus();
        // step back one stop at a time until the older fact is the valid one
        for (let i = 0; i < 20 && !(await validFacts()).includes("Aperture"); i++) {
          await page.keyboard.press("ArrowLeft");
          await new Promise((r) => setTimeout(r, 150));
        }
        await expect.poll(() => stateOf(ids.aperture!)).toBe("valid");
        expect(await stateOf(ids.blackMesa!)).toBe("ended");
        expect(await validFacts()).not.toContain("Black Mesa");
        const before = await slider.getAttribute("aria-valuetext");
        expect(Date.parse(before!.replace(" UTC", "Z").replace(" ", "T"))).toBeLessThan(Date.parse("2024-06-01T00:00:00Z"));
        // one stop forward crosses the supersession
        await page.keyboard.press("ArrowRight");
        await expect.poll(() => stateOf(ids.blackMesa!)).toBe("valid");
        expect(await stateOf(ids.aperture!)).toBe("ended");
        expect(await validFacts()).toContain("Black Mesa");
        expect(await slider.getAttribute("aria-valuetext")).toContain("2024-06-01");
        await page.keyboard.press("End");
        await expect.poll(() => slider.getAttribute("aria-valuetext")).toMatch(/^now/);
        // knownAt before anything was recorded: the memory knew no fact yet; back at now, Black Mesa again
        const known = explorer().getByRole("slider", { name: "Known at (knownAt)" });
        await known.focus();
        await page.keyboard.press("Home");
        await expect.poll(() => stateOf(ids.blackMesa!)).toBe("ended");
        expect(await validFacts()).toBe("");
        expect(await explorer().getByRole("list", { name: "Facts valid at this point" }).innerText()).toContain(
          "No fact was valid and known",
        );
        await page.keyboard.press("End");
        await expect.poll(() => stateOf(ids.blackMesa!)).toBe("valid");
      });

      it("shows an entity's facts, and invalidates a fact with a reason", async () => {
        await explorer().getByRole("button", { name: "Lara", exact: true }).click();
        const facts = explorer().getByRole("list", { name: "Facts about Lara" });
        await expect.poll(() => facts.innerText()).toContain("Aperture");
        expect(await facts.innerText()).toContain("Black Mesa");
        await explorer()
          .getByRole("list", { name: "Facts valid at this point" })
          .getByRole("button", { name: /Invalidate: .*Seattle/ })
          .click();
        await explorer().getByLabel("Reason").fill("moved to City 17");
        await explorer().getByRole("button", { name: "Invalidate", exact: true }).click();
        await expect.poll(async () => (await api(`/v1/edges/${ids.seattle}`)).body.invalidationReason).toBe("moved to City 17");
        await expect.poll(() => stateOf(ids.seattle!)).toBe("ended");
        expect(await validFacts()).not.toContain("Seattle");
      });

      it("recalls with the context, the edges and the cited episodes", async () => {
        await explorer().getByLabel("Question").fill("Where does Lara work?");
        await explorer().getByRole("button", { name: "Recall" }).click();
        await expect.poll(() => explorer().getByRole("list", { name: "Recalled facts" }).innerText()).toContain("Black Mesa");
        // the context as the API wrote it, but for its first line (the instant it was asked at)
        const context = await explorer().getByLabel("Context").innerText();
        const direct = await api("/v1/recall", KEY_A, { query: "Where does Lara work?" });
        const body = (s: string) => s.split("\n").slice(1).join("\n").trim();
        expect(body(context)).toBe(body(direct.body.context));
        expect(context).toContain("Lara works at Black Mesa.");
        expect(await explorer().getByRole("list", { name: "Cited episodes" }).innerText()).toContain("Lara works at Black Mesa.");
      });

      it("renders a playbook's markdown without turning stored HTML into markup", async () => {
        await explorer().getByRole("list", { name: "Playbooks" }).getByRole("button").first().click();
        const article = explorer().locator("article.markdown");
        await expect.poll(() => article.locator("li").count()).toBeGreaterThan(0);
        expect(await article.innerText()).toContain("green build");
        expect(await article.locator("img").count()).toBe(0);
        expect(await page.title()).not.toBe("pwned");
      });

      it("has no serious or critical accessibility violation", async () => {
        const violations = await accessibilityViolationsUnderCsp(page);
        expect(violations).toEqual([]);
        // nothing the page did was refused by its own Content-Security-Policy
        expect(cspErrors).toEqual([]);
      });

      if (index === 0)
        it("writes screenshots at desktop and 360 px", async () => {
          await explorer().getByRole("slider", { name: "Valid at (asOf)" }).focus();
          await page.keyboard.press("End");
          const files = await screenshots(page, "memory-explorer", async (p) => {
            await p.evaluate(() => window.scrollTo(0, 0));
            await new Promise((r) => setTimeout(r, 400));
          });
          expect(files).toHaveLength(2);
          // the 360 px layout fits its width
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow).toBeLessThanOrEqual(0);
        });
    });
  });
});
