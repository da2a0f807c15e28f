// @mountkit/support: customer-support conversations (public API + SSE, Support SPI, agent side).
export { createSupportService, SUPPORT_MOUNTS, type SupportApi, type SupportService, type SupportServiceOptions } from "./service.js";
export { memorySupportStore } from "./store/memory.js";
export type * from "./store/types.js";
export type {
  BackendContext,
  CustomerBackend,
  CustomerScope,
  LocalStream,
  WebhookReceiver,
  WebhookReply,
  WebhookRequest,
} from "./domain/backend.js";
export type { Product, ProductConfig, ProductLimits } from "./domain/products.js";
export { DEFAULT_LIMITS } from "./domain/products.js";
export { formatMetadata, type Metadata, parseMetadata, stripMetadata, withMetadata } from "./domain/metadata.js";
export { type CloseAction, isOpen, type State, STATUSES, type Status, stateOf } from "./domain/status.js";
export { EVENT_TYPES, type EventNotice, type EventType, conversationTopic } from "./domain/events.js";
export type { Comment, ConversationView, Issue, Summary } from "./domain/wire.js";
export { CUSTOMER_ID } from "./routes/schemas.js";
export { supportError } from "./errors.js";
export { spiBackend, type SpiBackendOptions } from "./backends/spi.js";
export { githubBackend, type GithubBackend, type GithubBackendOptions } from "./backends/github/backend.js";
export { verifyGithubSignature } from "./backends/github/webhook.js";
export { createMirror, type Mirror, type MirrorMessage, type MirrorSnapshot, type MirrorState } from "./domain/mirror.js";
