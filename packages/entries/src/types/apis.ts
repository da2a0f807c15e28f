// Built-in type `apis`: descriptions of APIs, each pointing at its OpenAPI/Swagger document.
import * as z from "zod";

/** Absolute http(s) URL: the only schemes a catalogue can fetch. */
export const httpUrl = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL")
  // the refinement is invisible to JSON Schema: say it with `format` and a scheme pattern
  .meta({ format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]" });

export const apisCustomData = z
  .strictObject({
    specUrl: httpUrl.describe("Where the API's OpenAPI (3.0, 3.1) or Swagger 2.0 document is published, JSON or YAML."),
    contact: z
      .strictObject({
        name: z.string().min(1).max(200).optional(),
        email: z.email().max(320).optional(),
        url: httpUrl.optional(),
      })
      .optional(),
  })
  .describe("customData of an `apis` entry");

export type ApisCustomData = z.infer<typeof apisCustomData>;
