// Listing the customers' ratings for the agent side (docs/support.md#ratings): the ratings live on their conversations
// (`ConversationRecord.rating`); this store reads them newest first, a page at a time, and counts them per score.

/** Which ratings: one product's, optionally one score and a `ratedAt` window (`since` inclusive, `until` exclusive). */
export interface RatingQuery {
  productSlug: string;
  score?: number;
  /** ISO-8601 UTC as the clock writes it (`toISOString()`): ratings at or after it. */
  since?: string;
  /** ISO-8601 UTC as the clock writes it: ratings strictly before it. */
  until?: string;
}

/** A rated conversation as the ratings list shows it. */
export interface RatedConversation {
  conversationId: string;
  subject: string;
  customerId: string;
  assignee: string | null;
  score: number;
  comment: string | null;
  ratedAt: string;
}

/** How many ratings of each score match a query. */
export type RatingCounts = Record<"1" | "2" | "3" | "4" | "5", number>;

/** Ratings of live (not deleted) conversations only. */
export interface RatingStore {
  /** Newest first (ratedAt desc, conversation id desc); `after`: rows strictly after that position; all when no `limit`. */
  list(query: RatingQuery & { after?: { ratedAt: string; id: string }; limit?: number }): Promise<RatedConversation[]>;
  /** The number of matching ratings per score (every score present, 0 when none). */
  counts(query: RatingQuery): Promise<RatingCounts>;
}

export const noRatings = (): RatingCounts => ({ 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 });
