// Tables behind the core interfaces: durable jobs, sliding-log rate limits, quota counters, webhook subscriptions and
// deliveries.
import type { MigrationSet } from "../migrate.js";
import { exec } from "../migrate.js";

export const coreMigrations: MigrationSet = {
  name: "core",
  migrations: [
    {
      version: 1,
      name: "jobs, rate limits, quotas",
      async up(db) {
        await exec(db, [
          `create table jobs (
            id text primary key,
            queue text not null,
            payload text not null,
            state text not null check (state in ('queued', 'running', 'done', 'dead')),
            attempts integer not null default 0,
            max_attempts integer not null,
            run_at bigint not null,
            lease_until bigint not null default 0,
            last_error text,
            created_at bigint not null,
            updated_at bigint not null
          )`,
          "create index jobs_due on jobs (queue, state, run_at)",
          `create table rate_limit_logs (
            key text primary key,
            log text not null,
            expires_at bigint not null
          )`,
          "create index rate_limit_logs_expiry on rate_limit_logs (expires_at)",
          `create table quota_counters (
            key text not null,
            period text not null,
            used integer not null,
            primary key (key, period)
          )`,
        ]);
      },
    },
    {
      version: 2,
      name: "jobs record which worker holds them",
      async up(db) {
        await exec(db, ["alter table jobs add column locked_by text"]);
      },
    },
    {
      version: 3,
      name: "job workers' heartbeats",
      async up(db) {
        await exec(db, ["create table job_workers (owner text primary key, seen_at bigint not null)"]);
      },
    },
    {
      version: 4,
      name: "job group keys (one running job per group)",
      async up(db) {
        await exec(db, [
          "alter table jobs add column group_key text",
          "create index jobs_group_running on jobs (queue, group_key, state) where group_key is not null",
        ]);
      },
    },
    {
      version: 5,
      name: "webhook subscriptions and deliveries",
      async up(db) {
        await exec(db, [
          `create table webhook_subscriptions (
            id text primary key,
            scope text not null,
            url text not null,
            events text not null,
            secret text not null,
            description text not null,
            enabled integer not null,
            created_at bigint not null,
            updated_at bigint not null
          )`,
          "create index webhook_subscriptions_scope on webhook_subscriptions (scope, created_at)",
          `create table webhook_deliveries (
            id text primary key,
            subscription_id text not null,
            scope text not null,
            event_id text not null,
            event_type text not null,
            subject text not null,
            payload text not null,
            occurred_at bigint not null,
            state text not null check (state in ('pending', 'delivered', 'failed')),
            attempts text not null,
            attempt_count integer not null,
            created_at bigint not null,
            delivered_at bigint,
            next_attempt_at bigint
          )`,
          "create index webhook_deliveries_log on webhook_deliveries (subscription_id, event_id)",
          "create index webhook_deliveries_pending on webhook_deliveries (subscription_id, subject, event_id) where state = 'pending'",
        ]);
      },
    },
    {
      version: 6,
      name: "job claims read each group's oldest queued job by index",
      async up(db) {
        // a claim walks the queued groups one index seek each and takes the oldest queued job of each group, and the
        // oldest ungrouped ones, instead of ranking the whole backlog (stores/kit/jobs.ts)
        await exec(db, [
          "create index jobs_queued_groups on jobs (queue, state, group_key, run_at, id) where group_key is not null",
          "create index jobs_queued_free on jobs (queue, state, run_at, id) where group_key is null",
        ]);
      },
    },
    {
      version: 7,
      name: "webhook deliveries by scope",
      async up(db) {
        // an erasure deletes the deliveries of one scope (a brain, a product) naming what it erased: read by index, not
        // by a scan of every scope's log while the write lock is held (stores/kit/webhooks.ts, forgetMentions)
        await exec(db, ["create index webhook_deliveries_scope on webhook_deliveries (scope)"]);
      },
    },
  ],
};
