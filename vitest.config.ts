import { defineConfig } from "vitest/config";

// One config at the root: tests run on TypeScript sources through the "source" export condition.
export default defineConfig({
  resolve: { conditions: ["mountkit-source"] },
  ssr: { resolve: { conditions: ["mountkit-source"], externalConditions: ["mountkit-source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "adapters/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
