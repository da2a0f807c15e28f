// Tables of the support service: conversations (with their event-log position and creation dedup key),
// messages, the event log, the ids of inbound webhook deliveries, the customers' ratings, agents' private notes and
// canned replies, attachments and the customers' attachment usage; an index to list ratings newest first.
import type { MigrationSet } from "../migrate.js";
import { exec } from "../migrate.js";

export const supportMigrations: MigrationSet = {
  name: "support",
  migrations: [
    {
      version: 1,
      name: "conversations, messages, events",
      async up(db, dialect) {
        // byte order for keys and ISO timestamps: keyset pagination must sort exactly as the other stores do
        const key = dialect === "postgres" ? 'text collate "C"' : "text";
        await exec(db, [
          `create table support_conversations (
            id ${key} primary key,
            product_slug text not null,
            customer_id text not null,
            subject text not null,
            status text not null,
            labels text not null,
            assignee text,
            first_message_id text not null,
            created_at ${key} not null,
            updated_at ${key} not null,
            last_seq integer not null,
            pruned_through integer not null default 0,
            deleted_at text
          )`,
          "create index support_conversations_product on support_conversations (product_slug, updated_at desc, id desc)",
          "create index support_conversations_customer on support_conversations (product_slug, customer_id, updated_at desc, id desc)",
          `create table support_messages (
            id text primary key,
            conversation_id text not null references support_conversations (id),
            body text,
            author text not null,
            is_customer integer not null,
            client_message_id text,
            created_at text not null,
            updated_at text not null,
            seq integer not null
          )`,
          "create index support_messages_conversation on support_messages (conversation_id, seq)",
          "create unique index support_messages_client_id on support_messages (conversation_id, client_message_id)",
          `create table support_events (
            conversation_id text not null references support_conversations (id),
            seq integer not null,
            type text not null,
            data text,
            created_at text not null,
            primary key (conversation_id, seq)
          )`,
          "create index support_events_created on support_events (created_at)",
        ]);
      },
    },
    {
      version: 2,
      name: "webhook deliveries",
      async up(db) {
        // one row per inbound webhook delivery, so a redelivered or replayed one is processed once
        await exec(db, [
          `create table support_deliveries (
            source text not null,
            delivery_id text not null,
            received_at text not null,
            primary key (source, delivery_id)
          )`,
          "create index support_deliveries_received on support_deliveries (received_at)",
        ]);
      },
    },
    {
      version: 3,
      name: "conversation creation dedup key",
      async up(db) {
        // the customer's clientMessageId of the first message: a retried create finds the first conversation;
        // unique among live conversations, so concurrent retries insert one and a deleted one frees its key
        await exec(db, [
          "alter table support_conversations add column dedup_key text",
          `create unique index support_conversations_dedup on support_conversations (product_slug, customer_id, dedup_key)
            where dedup_key is not null and deleted_at is null`,
        ]);
      },
    },
    {
      version: 4,
      name: "conversation ratings",
      async up(db) {
        // one rating per conversation (docs/support.md#ratings), replaced when the customer rates again
        await exec(db, [
          "alter table support_conversations add column rating_score integer",
          "alter table support_conversations add column rating_comment text",
          "alter table support_conversations add column rated_at text",
        ]);
      },
    },
    {
      version: 5,
      name: "private notes and canned replies",
      async up(db, dialect) {
        // notes sit apart from messages and events, so nothing that reads those (interface A, its stream, interface B,
        // the backends, outbound events) can carry one (docs/support.md#private-notes)
        const key = dialect === "postgres" ? 'text collate "C"' : "text";
        await exec(db, [
          `create table support_notes (
            id ${key} primary key,
            conversation_id text not null references support_conversations (id),
            body text not null,
            author text not null,
            created_at ${key} not null,
            updated_at text not null
          )`,
          "create index support_notes_conversation on support_notes (conversation_id, created_at, id)",
          `create table support_canned_replies (
            id text primary key,
            product_slug text not null,
            shortcut ${key} not null,
            title text not null,
            body text not null,
            created_at text not null,
            updated_at text not null
          )`,
          // one shortcut per product, also under concurrent writes (docs/support.md#canned-replies)
          "create unique index support_canned_replies_shortcut on support_canned_replies (product_slug, shortcut)",
        ]);
      },
    },
    {
      version: 6,
      name: "attachments",
      async up(db, dialect) {
        // records apart from their bytes: a host may keep the bytes elsewhere (docs/support.md#attachments)
        const key = dialect === "postgres" ? 'text collate "C"' : "text";
        await exec(db, [
          `create table support_attachments (
            id text primary key,
            product_slug text not null,
            customer_id text,
            uploaded_by text not null,
            conversation_id text,
            message_id text,
            name text not null,
            content_type text not null,
            size integer not null,
            created_at ${key} not null
          )`,
          // the sweep reads pending uploads oldest first
          "create index support_attachments_pending on support_attachments (created_at) where conversation_id is null",
          `create table support_blobs (key text primary key, data ${dialect === "postgres" ? "bytea" : "blob"} not null)`,
        ]);
      },
    },
    {
      version: 7,
      name: "attachment usage per customer per day",
      async up(db, dialect) {
        // the bytes each customer uploaded, one row per upload, kept apart from the records so that deleting or
        // sweeping an upload does not give its bytes back (attachments.maxBytesPerCustomerPerDay); pruned after 24 hours
        await exec(db, [
          `create table support_attachment_usage (
            id text primary key,
            product_slug text not null,
            customer_id text not null,
            bytes ${dialect === "postgres" ? "bigint" : "integer"} not null,
            at ${dialect === "postgres" ? "bigint" : "integer"} not null
          )`,
          "create index support_attachment_usage_customer on support_attachment_usage (product_slug, customer_id, at)",
          "create index support_attachment_usage_at on support_attachment_usage (at)",
        ]);
      },
    },
    {
      version: 8,
      name: "ratings newest first",
      async up(db, dialect) {
        // GET /agent/ratings reads one product's rated conversations newest first (docs/support.md#ratings)
        const ratedAt = dialect === "postgres" ? '(rated_at collate "C")' : "rated_at";
        await exec(db, [
          `create index support_conversations_rated on support_conversations (product_slug, ${ratedAt} desc, id desc)
            where rated_at is not null and deleted_at is null`,
        ]);
      },
    },
  ],
};
