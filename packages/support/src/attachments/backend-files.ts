// What a product's backend sees of the attachments (domain/backend.ts `BackendFiles`): the bytes of that product's
// files, and their signed links when the service gives them out.
import type { BackendFiles } from "../domain/backend.js";
import type { Attachments } from "./attachments.js";

export function backendFiles(att: Attachments, productSlug: string): BackendFiles {
  return {
    async read(id) {
      const [r] = await att.store.getMany([id]);
      if (!r || r.productSlug !== productSlug) return null;
      return att.blobs.get(r.id);
    },
    link: async (ref) => att.links?.url(ref),
  };
}
