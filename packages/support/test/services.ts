// Support services built for in-process tests: a fresh customer id, and services disposed after each test.
import { afterEach } from "vitest";
import { createSupportService, type SupportService } from "../src/index.js";

export const cust = () => `cust_${crypto.randomUUID()}`;

/** `make(options)` builds a service on product "demo" with pruning off; every one is disposed after its test. */
export function serviceMaker(): (o?: Partial<Parameters<typeof createSupportService>[0]>) => SupportService {
  const disposers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const d of disposers.splice(0)) await d();
  });
  return (o = {}) => {
    const s = createSupportService({ products: ["demo"], pruneIntervalMs: 0, ...o });
    disposers.push(() => s.dispose());
    return s;
  };
}
