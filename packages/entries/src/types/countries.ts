// Built-in type `countries`: ISO 3166 country records.
import * as z from "zod";

/** The flag emoji of an ISO 3166 alpha-2 code: one regional-indicator letter per code letter. */
export function flagOf(alpha2: string): string {
  return String.fromCodePoint(...[...alpha2.toUpperCase()].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

const ALPHA2 = /^[A-Z]{2}$/;

export const countriesCustomData = z
  .strictObject({
    emoji: z
      .string()
      .min(1)
      .max(16)
      .describe("The flag: the regional-indicator letters of `alpha2` (e.g. 🇫🇷 for FR); any other value answers 422."),
    name: z.string().min(1).max(200),
    officialName: z.string().min(1).max(300),
    sovereignty: z.string().min(1).max(200),
    alpha2: z.string().regex(ALPHA2, "must be two upper-case letters"),
    alpha3: z.string().regex(/^[A-Z]{3}$/, "must be three upper-case letters"),
    numeric: z.string().regex(/^\d{3}$/, "must be three digits"),
  })
  // `when` keeps this check running even if other members failed, so every failing path is listed.
  .refine((c) => c.emoji === flagOf(c.alpha2), {
    path: ["emoji"],
    message: "must be the flag of alpha2",
    when: (p) => {
      const v = p.value as Record<string, unknown> | undefined;
      return typeof v?.emoji === "string" && typeof v.alpha2 === "string" && ALPHA2.test(v.alpha2);
    },
  })
  .describe(
    "customData of a `countries` entry. Enforced beyond this schema: `emoji` must be the flag made of the regional-indicator letters of `alpha2` (422 otherwise).",
  );

export type CountriesCustomData = z.infer<typeof countriesCustomData>;
