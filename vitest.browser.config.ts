import { defineConfig } from "vitest/config";

// The real-browser suite (Debian's Chromium through playwright-core), run by `npm test` after the main
// suite, one file at a time, so the page never competes with other test workers for the machine's cores.
export default defineConfig({
  resolve: { conditions: ["mountkit-source"] },
  ssr: { resolve: { conditions: ["mountkit-source"], externalConditions: ["mountkit-source"] } },
  test: {
    name: "browser",
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
