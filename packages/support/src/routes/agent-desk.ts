// The agent side's private notes (`/agent/conversations/:id/notes`), canned replies (`/agent/canned-replies`) and the
// ratings list (`/agent/ratings`, routes/agent-ratings.ts),
// behind the agent routes' guard. Notes answer only here and in the agent detail; canned replies are each product's
// own: one read, changed or removed through another product's slug is not found.
import { empty, json, type Route, route } from "@mountkit/core";
import * as z from "zod";
import { ratingsRoute } from "./agent-ratings.js";
import type { DeskCx } from "./desk-context.js";
import {
  CannedCreateBody,
  CannedPatchBody,
  CannedReplySchema,
  NoteCreateBody,
  NoteEditBody,
  NoteIdParams,
  NoteSchema,
} from "./desk-schemas.js";
import { bodyErrors, IdParam, ProductSlug } from "./schemas.js";

const NOTES = "/agent/conversations/:id/notes";
const CANNED = "/agent/canned-replies";
const err = (description: string) => ({ description });
const auth = { 400: err("Invalid path, query or body"), 401: err("Bad or missing bearer token") };
const noteErrors = {
  ...auth,
  404: err("Conversation or note not found"),
  501: err("The product's conversations are worked on in its backend"),
};
const cannedErrors = { ...auth, 404: err("No product for the slug, or no canned reply of this product with the id") };
const ProductQuery = z.object({ productSlug: ProductSlug });
const CannedIdParam = z.object({ id: z.string().min(1).max(200) });

function noteRoutes({ cx, common, onThisSide }: DeskCx): Route[] {
  return [
    route({
      ...common,
      method: "GET",
      path: NOTES,
      operationId: "agentListNotes",
      summary: "A conversation's private notes, oldest first (agents only)",
      params: IdParam,
      responses: { 200: { description: "OK", schema: z.object({ items: z.array(NoteSchema) }) }, ...noteErrors },
      async handler({ params }) {
        await onThisSide(params.id);
        return json(200, { items: await cx.api.agent.notes.list(params.id) });
      },
    }),
    route({
      ...common,
      method: "POST",
      path: NOTES,
      operationId: "agentAddNote",
      summary: "Leave a private note for other agents",
      description:
        "The note is never shown in interface A, its stream, interface B or a backend's thread, and sends no outbound event; it leaves the conversation's status and `updatedAt` as they are. The product's inbox stream says `notes_changed`.",
      params: IdParam,
      body: NoteCreateBody,
      responses: { 201: { description: "Added", schema: NoteSchema }, ...noteErrors, ...bodyErrors },
      async handler({ params, body }) {
        await onThisSide(params.id);
        return json(201, await cx.api.agent.notes.add(params.id, body));
      },
    }),
    route({
      ...common,
      method: "PATCH",
      path: `${NOTES}/:noteId`,
      operationId: "agentEditNote",
      params: NoteIdParams,
      body: NoteEditBody,
      responses: { 200: { description: "Edited", schema: NoteSchema }, ...noteErrors, ...bodyErrors },
      async handler({ params, body }) {
        await onThisSide(params.id);
        return json(200, await cx.api.agent.notes.edit(params.id, params.noteId, body.body));
      },
    }),
    route({
      ...common,
      method: "DELETE",
      path: `${NOTES}/:noteId`,
      operationId: "agentDeleteNote",
      params: NoteIdParams,
      responses: { 204: { description: "Deleted" }, ...noteErrors },
      async handler({ params }) {
        await onThisSide(params.id);
        await cx.api.agent.notes.remove(params.id, params.noteId);
        return empty(204);
      },
    }),
  ];
}

function cannedRoutes({ cx, common }: DeskCx): Route[] {
  const replies = cx.api.agent.cannedReplies;
  return [
    route({
      ...common,
      method: "GET",
      path: CANNED,
      operationId: "agentListCannedReplies",
      summary: "A product's canned replies, ordered by shortcut",
      query: ProductQuery,
      responses: { 200: { description: "OK", schema: z.object({ items: z.array(CannedReplySchema) }) }, ...cannedErrors },
      async handler({ query }) {
        return json(200, { items: await replies.list(query.productSlug) });
      },
    }),
    route({
      ...common,
      method: "POST",
      path: CANNED,
      operationId: "agentCreateCannedReply",
      summary: "Save a canned reply for the product's agents",
      query: ProductQuery,
      body: CannedCreateBody,
      responses: {
        201: { description: "Created", schema: CannedReplySchema },
        ...cannedErrors,
        409: err("Another canned reply of the product has the shortcut"),
        ...bodyErrors,
      },
      async handler({ query, body }) {
        return json(201, await replies.create(query.productSlug, body));
      },
    }),
    route({
      ...common,
      method: "GET",
      path: `${CANNED}/:id`,
      operationId: "agentGetCannedReply",
      params: CannedIdParam,
      query: ProductQuery,
      responses: { 200: { description: "OK", schema: CannedReplySchema }, ...cannedErrors },
      async handler({ params, query }) {
        return json(200, await replies.get(query.productSlug, params.id));
      },
    }),
    route({
      ...common,
      method: "PATCH",
      path: `${CANNED}/:id`,
      operationId: "agentEditCannedReply",
      summary: "Change a canned reply's shortcut, title or body",
      params: CannedIdParam,
      query: ProductQuery,
      body: CannedPatchBody,
      responses: {
        200: { description: "Edited", schema: CannedReplySchema },
        ...cannedErrors,
        409: err("Another canned reply of the product has the shortcut"),
        ...bodyErrors,
      },
      async handler({ params, query, body }) {
        return json(200, await replies.update(query.productSlug, params.id, body));
      },
    }),
    route({
      ...common,
      method: "DELETE",
      path: `${CANNED}/:id`,
      operationId: "agentDeleteCannedReply",
      params: CannedIdParam,
      query: ProductQuery,
      responses: { 204: { description: "Deleted" }, ...cannedErrors },
      async handler({ params, query }) {
        await replies.remove(query.productSlug, params.id);
        return empty(204);
      },
    }),
  ];
}

/** The notes, canned-reply and ratings routes, on the agent routes' guard. */
export function deskRoutes(a: DeskCx): Route[] {
  return [...noteRoutes(a), ...cannedRoutes(a), ratingsRoute(a)];
}
