// Same-origin fetch for external `$ref` documents, under the same policy as specUrl itself.
import { specRuntime } from "#spec-runtime";
import type { SafeFetchOptions } from "@mountkit/core/outbound";

export function sameOriginFetcher(fetchOptions: SafeFetchOptions) {
  return async (url: URL) => (await specRuntime.safeFetch(url, fetchOptions)).body;
}
