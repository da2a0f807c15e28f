// @mountkit/support/node: the Node-only pieces of the support service, kept off the root so it still runs on fetch
// runtimes: the filesystem blob store for attachments (docs/support.md#blob-stores).
export { type FileBlobStore, type FileBlobStoreOptions, fileBlobStore } from "./attachments/file-blobs.js";
