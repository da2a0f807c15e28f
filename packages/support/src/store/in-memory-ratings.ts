// In-memory RatingStore (store/rating-types.ts): a scan of the conversations the in-memory store holds.
import { noRatings, type RatedConversation, type RatingQuery, type RatingStore } from "./rating-types.js";
import type { ConversationRecord } from "./types.js";

type Rated = ConversationRecord & { rating: NonNullable<ConversationRecord["rating"]> };

const matches = (c: ConversationRecord, q: RatingQuery): c is Rated =>
  !c.deletedAt &&
  c.productSlug === q.productSlug &&
  c.rating !== undefined &&
  (q.score === undefined || c.rating.score === q.score) &&
  (q.since === undefined || c.rating.ratedAt >= q.since) &&
  (q.until === undefined || c.rating.ratedAt < q.until);

/** Whether `a` comes after position `p` in the order (ratedAt desc, id desc). */
const after = (a: Rated, p: { ratedAt: string; id: string }) =>
  a.rating.ratedAt < p.ratedAt || (a.rating.ratedAt === p.ratedAt && a.id < p.id);

const view = (c: Rated): RatedConversation => ({
  conversationId: c.id,
  subject: c.subject,
  customerId: c.customerId,
  assignee: c.assignee,
  score: c.rating.score,
  comment: c.rating.comment,
  ratedAt: c.rating.ratedAt,
});

export function inMemoryRatingStore(conversations: () => Iterable<ConversationRecord>): RatingStore {
  const rated = (q: RatingQuery) => [...conversations()].filter((c): c is Rated => matches(c, q));
  return {
    async list(q) {
      const out = rated(q)
        .filter((c) => !q.after || after(c, q.after))
        .sort((a, b) => (after(a, { ratedAt: b.rating.ratedAt, id: b.id }) ? 1 : after(b, { ratedAt: a.rating.ratedAt, id: a.id }) ? -1 : 0));
      return (q.limit === undefined ? out : out.slice(0, q.limit)).map(view);
    },
    async counts(q) {
      const counts = noRatings();
      for (const c of rated(q)) {
        const k = String(c.rating.score) as keyof typeof counts;
        if (k in counts) counts[k]++;
      }
      return counts;
    },
  };
}
