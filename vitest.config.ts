import { defineConfig } from "vitest/config";

// One config at the root. Tests run on TypeScript sources through the "mountkit-source" export condition.
// test/global-setup.ts starts one throwaway PostgreSQL cluster per run (skipped with a printed reason when
// the binaries are missing; an error under CI=true). The three HTTP conformance suites run three times:
// on the in-memory stores, on SQLite and on PostgreSQL (test/storage/sql-stores-setup.ts swaps the stores).
// The host-safety suite measures the host's event loop, so it is a project of its own that runs last and alone
// (sequence.groupOrder): the other projects' workers never share the cores with it. `npm test` (scripts/test.mjs)
// runs the projects in the same order, and adds the Node 22 and 24 runs when CI has prepared them.
const INCLUDE = ["packages/*/test/**/*.test.ts", "adapters/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "test/**/*.test.ts"];
const HOST_SAFETY = ["test/host-safety.test.ts"];
const HTTP_SUITES = ["test/entries.test.ts", "test/entries-revisions.test.ts", "test/entries-webhooks.test.ts", "test/entries-diff.test.ts", "test/memory.test.ts", "test/memory-webhooks.test.ts", "test/memory-erasure.test.ts", "test/memory-ingest.test.ts", "test/support.test.ts", "test/support-webhooks-out.test.ts", "test/nul-and-cursors.test.ts", "test/entries-hardening.test.ts", "test/support-pages.test.ts", "test/support-fair-limits.test.ts", "test/support-desk.test.ts", "test/support-attachments.test.ts", "test/support-identity.test.ts", "test/support-ratings.test.ts"];

export default defineConfig({
  resolve: { conditions: ["mountkit-source"] },
  ssr: { resolve: { conditions: ["mountkit-source"], externalConditions: ["mountkit-source"] } },
  test: {
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    projects: [
      // the browser suite runs on its own afterwards (vitest.browser.config.ts): Chromium beside two busy
      // test workers starves the page of CPU and turns its waits into timeouts
      {
        extends: true,
        test: { name: "default", include: INCLUDE, exclude: ["test/browser/**", "**/node_modules/**", ...HOST_SAFETY], sequence: { groupOrder: 0 } },
      },
      ...(["sqlite", "postgres"] as const).map((store) => ({
        extends: true as const,
        test: {
          name: `http-${store}`,
          include: HTTP_SUITES,
          setupFiles: ["test/storage/sql-stores-setup.ts"],
          env: { MOUNTKIT_TEST_STORE: store },
          sequence: { groupOrder: 0 },
        },
      })),
      { extends: true, test: { name: "host-safety", include: HOST_SAFETY, sequence: { groupOrder: 1 } } },
    ],
  },
});
