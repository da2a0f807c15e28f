// The few primitives whose best form is Node's own (`#platform` resolves to `node.ts` on Node, `fetch.ts` elsewhere),
// kept apart so that importing @mountkit/entries on a fetch runtime reaches no `node:` module.
export interface Platform {
  /** UTF-8 bytes to text (a leading BOM kept), or undefined when they are not UTF-8. */
  decodeUtf8(bytes: Uint8Array): string | undefined;
  /**
   * Loads an ES module synchronously, resolved from the package the way `import` would (the type registry is
   * synchronous); throws where the runtime cannot.
   */
  requireModule(specifier: string): unknown;
}
