// axe-core on a page whose CSP forbids inline scripts (the kit's own pages): axe's source is evaluated
// through the DevTools protocol, which the page's CSP does not govern, instead of an injected <script>.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);

/** axe-core's serious and critical violations on a CSP-locked page, shadow roots included. */
export async function accessibilityViolationsUnderCsp(
  page: Page,
): Promise<Array<{ id: string; impact: string; help: string; nodes: number; targets: string[] }>> {
  const source = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(source);
  const result = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<unknown> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  })) as { violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }> };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact!,
      help: v.help,
      nodes: v.nodes.length,
      targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)),
    }));
}
