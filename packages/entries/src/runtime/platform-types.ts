// `#runtime/platform`: the few primitives whose best form is Node's own. Like every capability in src/runtime/, it
// resolves through the package's `imports` map to `platform-node.ts` under the `node` condition and to
// `platform-fetch.ts` elsewhere, so that importing @mountkit/entries on a fetch runtime reaches no `node:` module.
// It imports nothing: the parser below the spec pools uses it.
export interface Platform {
  /** UTF-8 bytes to text (a leading BOM kept), or undefined when they are not UTF-8. */
  decodeUtf8(bytes: Uint8Array): string | undefined;
  /**
   * Loads an ES module synchronously, resolved from the package the way `import` would (the type registry is
   * synchronous); throws where the runtime cannot.
   */
  requireModule(specifier: string): unknown;
}
