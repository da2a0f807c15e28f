// The SQL RatingStore (`@mountkit/support`'s store/rating-types.ts): the ratings are columns of support_conversations
// (support migration 4); listed newest first over the partial index of migration 'ratings newest first'.
import { noRatings, type RatedConversation, type RatingQuery, type RatingStore } from "@mountkit/support";
import { sql } from "kysely";
import type { Db } from "./rows.js";

export function sqlRatingStore(db: Db, pg: boolean): RatingStore {
  // rated_at is plain text (migration 4): on PostgreSQL, byte order as the other stores compare ISO timestamps
  const ratedAt = pg ? sql<string>`rated_at collate "C"` : sql<string>`rated_at`;
  const filtered = (q: RatingQuery) => {
    let query = db
      .selectFrom("support_conversations")
      .where("product_slug", "=", q.productSlug)
      .where("deleted_at", "is", null)
      .where("rating_score", "is not", null);
    if (q.score !== undefined) query = query.where("rating_score", "=", q.score);
    if (q.since !== undefined) query = query.where(ratedAt, ">=", q.since);
    if (q.until !== undefined) query = query.where(ratedAt, "<", q.until);
    return query;
  };
  return {
    async list(q) {
      let query = filtered(q).select(["id", "subject", "customer_id", "assignee", "rating_score", "rating_comment", "rated_at"]);
      if (q.after) {
        const { ratedAt: at, id } = q.after;
        query = query.where((eb) => eb.or([eb(ratedAt, "<", at), eb.and([eb(ratedAt, "=", at), eb("id", "<", id)])]));
      }
      query = query.orderBy(ratedAt, "desc").orderBy("id", "desc");
      if (q.limit !== undefined) query = query.limit(q.limit);
      return (await query.execute()).map(
        (r): RatedConversation => ({
          conversationId: r.id,
          subject: r.subject,
          customerId: r.customer_id,
          assignee: r.assignee ?? null,
          score: Number(r.rating_score),
          comment: r.rating_comment ?? null,
          ratedAt: r.rated_at!,
        }),
      );
    },
    async counts(q) {
      const rows = await filtered(q)
        .select(["rating_score", (eb) => eb.fn.countAll<string | number>().as("n")])
        .groupBy("rating_score")
        .execute();
      const counts = noRatings();
      for (const r of rows) {
        const k = String(r.rating_score) as keyof typeof counts;
        if (k in counts) counts[k] = Number(r.n);
      }
      return counts;
    },
  };
}
