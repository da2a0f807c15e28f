// `#runtime/platform` on fetch runtimes (Workers, browsers): the web's TextDecoder, and no synchronous module loading.
import type { Platform } from "./platform-types.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export const platform: Platform = {
  decodeUtf8(bytes) {
    try {
      return utf8.decode(bytes);
    } catch {
      return undefined;
    }
  },
  requireModule(specifier) {
    throw new Error(`${specifier} cannot be loaded synchronously on this runtime`);
  },
};
