// The analytics service's answers (as real installations answer: docs/services.md) read tolerantly: integers may be strings, `password` is a
// boolean (is one set?), `exclude_params` never comes back, lists are one entry per line.
import * as z from "zod";

const int = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/, "expected an integer")])
  .transform((v) => Number(v));
const bit = z
  .union([z.number(), z.string(), z.boolean(), z.null()])
  .transform((v) => (v === true || v === 1 || v === "1" || v === "true" ? 1 : 0) as 0 | 1);
const privacy = int.pipe(z.union([z.literal(0), z.literal(1), z.literal(2)]));
const lines = z
  .union([z.string(), z.array(z.string()), z.null()])
  .optional()
  .transform((v) => splitLines(v ?? ""));

export const websiteSchema = z.looseObject({
  id: int,
  domain: z.string().min(1),
  privacy,
  email: bit.optional().transform((v) => v ?? 0),
  password: z
    .union([z.boolean(), z.number(), z.string(), z.null()])
    .optional()
    // Left out (a build that hides the column): unknown, not "no password".
    .transform((v) => (v === undefined ? undefined : v === true || v === 1 || v === "1")),
  exclude_bots: bit.optional().transform((v) => v ?? 1),
  exclude_ips: lines,
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type RemoteWebsite = z.output<typeof websiteSchema>;

const pageNumbers = {
  current_page: int.optional(),
  last_page: int.optional(),
  per_page: int.optional(),
  total: int.optional(),
};

/** A link to the next page (`links.next`, or the simple paginator's `next_page_url`): null on the last page. */
const nextLink = z.unknown().optional();

/** A list page in either shape: Laravel's resource collection (`meta`) or a bare paginator. */
export const websitePageSchema = z
  .looseObject({
    data: z.array(z.unknown()),
    meta: z.looseObject(pageNumbers).optional(),
    links: z.looseObject({ next: nextLink }).optional().catch(undefined),
    next_page_url: nextLink,
    ...pageNumbers,
  })
  .transform((page) => ({
    data: page.data,
    currentPage: page.meta?.current_page ?? page.current_page,
    lastPage: page.meta?.last_page ?? page.last_page,
    total: page.meta?.total ?? page.total,
    perPage: page.meta?.per_page ?? page.per_page,
    hasNext: hasNextLink(page.links?.next ?? page.next_page_url),
  }));

/** Whether a page links to a next one: a non-empty link says so, null or "" says not, anything else says nothing. */
function hasNextLink(link: unknown): boolean | undefined {
  if (link === null || link === "") return false;
  return typeof link === "string" ? true : undefined;
}

const wrappedWebsiteSchema = z.looseObject({ data: websiteSchema }).transform((wrapped) => wrapped.data);

/**
 * The schema for a single website (create, show, update) in either shape: wrapped by the resource class as
 * `{"data":{…},"status":200}` when the body has `data`, else the bare model (builds that list with the bare
 * paginator answer so). Anything else fails either schema and is malformed.
 */
export function singleWebsiteSchema(body: unknown): z.ZodType<RemoteWebsite> {
  const wrapped = typeof body === "object" && body !== null && !Array.isArray(body) && "data" in body;
  return (wrapped ? wrappedWebsiteSchema : websiteSchema) as z.ZodType<RemoteWebsite>;
}

export const deleteResultSchema = z.looseObject({ deleted: z.boolean().optional(), id: int.optional() });

export function splitLines(value: string | string[]): string[] {
  const items = Array.isArray(value) ? value : value.split(/\r?\n/);
  return items.map((item) => item.trim()).filter((item) => item !== "");
}
