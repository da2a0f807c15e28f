// Same-origin fetch for external `$ref` documents, under the same policy as specUrl itself.

import type { SafeFetchOptions } from "@mountkit/core/outbound";
import { specRuntime } from "#runtime/spec";

export function sameOriginFetcher(fetchOptions: SafeFetchOptions) {
  return async (url: URL) => (await specRuntime.safeFetch(url, fetchOptions)).body;
}
