// The support service's error codes; its wire body is the kit's one body `{ error, details?, requestId }` (docs/conventions.md#error-body).
import { defineServiceErrors, ErrorBodySchema } from "@mountkit/core";

export const supportError = defineServiceErrors({
  product_not_found: { status: 404, message: "product not found" },
  conversation_not_found: { status: 404, message: "conversation not found" },
  message_not_found: { status: 404, message: "message not found" },
  note_not_found: { status: 404, message: "note not found" },
  canned_reply_not_found: { status: 404, message: "canned reply not found" },
  shortcut_taken: { status: 409, message: "shortcut taken by another canned reply of this product" },
  conversation_closed: { status: 409, message: "conversation is closed" },
  conversation_open: { status: 409, message: "conversation is open: it can be rated once resolved or closed" },
  too_many_streams: { status: 429, message: "too many concurrent streams for this customer" },
  not_supported: { status: 501, message: "not supported by this product's backend" },
  backend_unavailable: { status: 502, message: "support backend unavailable" },
});

export const ErrorSchema = ErrorBodySchema;
