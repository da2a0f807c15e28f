// @mountkit/support: customer-support conversations (public API + SSE, Support SPI, agent side).
// The conformance suite is on `@mountkit/support/testing`, the wire types shared with the client on `/wire`.
export type { SupportApi } from "./api.js";
export {
  type AttachmentLimits,
  type AttachmentOptions,
  type Attachments,
  attachmentError,
  DEFAULT_ATTACHMENT_LIMITS,
} from "./attachments/attachments.js";
export { inMemoryAttachmentStore, inMemoryBlobStore } from "./attachments/in-memory.js";
export type { AttachmentLinkOptions, AttachmentLinks } from "./attachments/links.js";
export { ATTACHMENT_TYPES, type AttachmentType, isSafeText, sniffAttachment } from "./attachments/sniff.js";
export type { AttachmentRecord, AttachmentRef, AttachmentStore, BlobStore } from "./attachments/types.js";
export { type GithubBackend, type GithubBackendOptions, githubBackend } from "./backends/github/backend.js";
export { verifyGithubSignature } from "./backends/github/webhook.js";
export { type SlackBackend, type SlackBackendOptions, slackBackend, verifySlackSignature } from "./backends/slack/backend.js";
export { type SpiBackendOptions, spiBackend } from "./backends/spi/backend.js";
export type {
  BackendContext,
  CustomerBackend,
  CustomerScope,
  LocalStream,
  WebhookReceiver,
  WebhookReply,
  WebhookRequest,
} from "./domain/backend.js";
export { conversationTopic, EVENT_TYPES, type EventDataMap, type EventNotice, type EventType, productTopic } from "./domain/events.js";
export { formatMetadata, type Metadata, parseMetadata, stripMetadata, withMetadata } from "./domain/metadata.js";
export { createMirror, type Mirror, type MirrorMessage, type MirrorSnapshot, type MirrorState } from "./domain/mirror.js";
export { productScope, SUPPORT_EVENTS, type SupportEventType } from "./domain/outbound.js";
export type { Product, ProductConfig, ProductLimits } from "./domain/products.js";
export { DEFAULT_LIMITS } from "./domain/products.js";
export { type CloseAction, isOpen, STATUSES, type State, type Status, stateOf } from "./domain/status.js";
export type { AgentSummary, Comment, ConversationView, Issue, Summary } from "./domain/views.js";
export { supportError } from "./errors.js";
export { addressKey, type ClientAddressOptions } from "./http/client-address.js";
export { CUSTOMER_ID } from "./routes/schemas.js";
export { createSupportService, INBOX_PATH, SUPPORT_MOUNTS, type SupportService, type SupportServiceOptions } from "./service.js";
export type { CannedReplyRecord, CannedReplyStore, CannedReplyWrite, NoteRecord, NoteStore } from "./store/agent-types.js";
export type { RatedConversation, RatingCounts, RatingQuery, RatingStore } from "./store/rating-types.js";
export { noRatings } from "./store/rating-types.js";
export type { RatingSummary, RatingsPage, RatingsQuery } from "./domain/agent-ratings.js";
export { inMemorySupportStore, memorySupportStore } from "./store/in-memory.js";
export {
  type AppendMessageResult,
  type ConversationPatch,
  type ConversationRecord,
  type CreateConversationResult,
  type Enqueue,
  type EventInput,
  type EventRecord,
  type ListConversationsQuery,
  METADATA_MARK,
  type MessageRecord,
  type Rating,
  type SupportStore,
  type WriteFailure,
  type WriteResult,
} from "./store/types.js";
