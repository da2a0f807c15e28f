// Pages a service serves (pageRoutes): the HTML shell names its API base and script, the slashless path
// redirects under the mount, and a failed script load is retried instead of cached.
import { describe, expect, it } from "vitest";
import { defineService, pageRoutes, toFetchHandler } from "../src/index.js";

const make = (script: () => Promise<string>) =>
  defineService({
    name: "pages",
    title: "pages",
    version: "1",
    mounts: ["/ui"],
    errorBody: (e, requestId) => ({ error: e.message, requestId }),
    routes: pageRoutes({ path: "/ui/inbox/", title: "Inbox <&>", element: "mountkit-inbox", script }),
  });

describe("pageRoutes", () => {
  it("serves the shell with its base, script and security headers, under the host's mount", async () => {
    const handler = toFetchHandler(
      make(async () => "console.log(1)"),
      { mountPath: "/kit" },
    );
    const page = await handler(new Request("http://host/kit/ui/inbox/"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<meta name="mountkit-base" content="/kit">');
    expect(html).toContain("<title>Inbox &lt;&amp;&gt;</title>");
    expect(html).toContain('<script src="app.js" defer></script>');
    expect(html).toContain("<mountkit-inbox></mountkit-inbox>");
    const js = await handler(new Request("http://host/kit/ui/inbox/app.js"));
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await js.text()).toBe("console.log(1)");
    const bare = await handler(new Request("http://host/kit/ui/inbox"));
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/kit/ui/inbox/");
  });

  it("retries a script that failed to load", async () => {
    let calls = 0;
    const handler = toFetchHandler(
      make(async () => {
        calls += 1;
        if (calls === 1) throw new Error("not built");
        return "ok";
      }),
    );
    expect((await handler(new Request("http://host/ui/inbox/app.js"))).status).toBe(500);
    const second = await handler(new Request("http://host/ui/inbox/app.js"));
    expect(await second.text()).toBe("ok");
  });

  it("refuses a path or element name it cannot serve", () => {
    expect(() => pageRoutes({ path: "/ui", title: "x", element: "mountkit-x", script: "" })).toThrow(/start and end/);
    expect(() => pageRoutes({ path: "/ui/", title: "x", element: "inbox", script: "" })).toThrow(/custom element/);
  });
});
