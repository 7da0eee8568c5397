// The analytics service's answers (as real installations answer: docs/services.md) read tolerantly: integers may be strings, `password` is a
// boolean (is one set?), yes/no values may be text or null (not known), `exclude_params` never comes back, lists
// are one entry per line.
import * as z from "zod";

const int = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/, "expected an integer")])
  .transform((v) => Number(v));
/**
 * A yes/no the service writes as it stored it: true/false, 1/0, "1"/"0" (a form value), "true"/"false" (text, in
 * any case, spaced). Null, or anything else, says nothing: not known — never read as "no", which would make every
 * pass plan a change the service never showed.
 */
export function readFlag(value: unknown): boolean | undefined {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  if (text === "1" || text === "true") return true;
  if (text === "0" || text === "false") return false;
  return undefined;
}

/** A 0/1 setting: `absent` when the record leaves the field out (a build without it); undefined when not known. */
const bit = (absent: 0 | 1) =>
  z
    .unknown()
    .optional()
    .transform((v): 0 | 1 | undefined => {
      if (v === undefined) return absent;
      const flag = readFlag(v);
      return flag === undefined ? undefined : flag ? 1 : 0;
    });
const privacy = int.pipe(z.union([z.literal(0), z.literal(1), z.literal(2)]));
const lines = z
  .union([z.string(), z.array(z.string()), z.null()])
  .optional()
  .transform((v) => splitLines(v ?? ""));

export const websiteSchema = z.looseObject({
  id: int,
  domain: z.string().min(1),
  privacy,
  email: bit(0),
  // Is a password set? Left out (a build that hides the column), null or unreadable: not known, not "no password".
  password: z.unknown().optional().transform(readFlag),
  exclude_bots: bit(1),
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
