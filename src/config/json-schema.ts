// The JSON Schema of config.yaml for editors (`topsync config schema`), generated from the zod schema, then
// completed with what zod cannot say in JSON Schema but JSON Schema can: a `${VAR}` placeholder is accepted
// in every scalar (config check replaces it before validating), a job has a schedule or an at (not both)
// and recipients, and the website password rules. What JSON Schema cannot say — a cron expression that
// never fires, an unknown time zone, duplicate job names or domains, a placeholder's value — stays with
// `topsync config check`, and the descriptions say so.
import * as z from "zod";
import { configSchema } from "./schema.js";

const DESCRIPTION =
  "config.yaml of topsync. $" +
  "{VAR} and $" +
  "{VAR:-default} in values are replaced from the environment before the file is checked, so any value " +
  "may be one. This schema checks the shape, types, ranges and patterns; `topsync config check` also " +
  "checks what a schema cannot: cron expressions that never fire, time zones, duplicate job names and " +
  "domains, and the values placeholders stand for.";

type Json = { [key: string]: unknown };

/** A string holding a `${VAR}` reference (src/config/interpolate.ts), which config check replaces first. */
const PLACEHOLDER: Json = {
  type: "string",
  pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\\}",
  description: "A $" + "{VAR} or $" + "{VAR:-default} reference, replaced from the environment.",
};

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean"]);

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Accepts a placeholder wherever a scalar is expected; walks objects, arrays and unions. */
function withPlaceholders(node: unknown): unknown {
  if (!isObject(node)) return node;
  const out: Json = { ...node };
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([key, value]) => [key, withPlaceholders(value)]),
    );
  }
  if (out.items !== undefined) out.items = withPlaceholders(out.items);
  if (Array.isArray(out.anyOf)) {
    const members = out.anyOf.map((member) => (isScalar(member) ? member : withPlaceholders(member)));
    if (members.some(isScalar)) members.push(PLACEHOLDER);
    out.anyOf = members;
    return out;
  }
  if (!isScalar(out)) return out;
  // A plain scalar: keep its annotations outside, the value's forms in anyOf.
  const { description, default: byDefault, ...form } = out;
  return {
    ...(description === undefined ? {} : { description }),
    ...(byDefault === undefined ? {} : { default: byDefault }),
    anyOf: [form, PLACEHOLDER],
  };
}

function isScalar(node: unknown): boolean {
  return isObject(node) && typeof node.type === "string" && SCALAR_TYPES.has(node.type);
}

/** JSON Schema's if/then. */
function ifThen(condition: Json, consequence: Json): Json {
  // biome-ignore lint/suspicious/noThenProperty: `then` is JSON Schema's keyword; this is no promise.
  return { if: condition, then: consequence };
}

const PASSWORD_PRIVACY: Json = { enum: ["password", 2, "2"] };
const OTHER_PRIVACY: Json = { enum: ["public", "private", 0, 1, "0", "1"] };

/** Not (both of `keys` present, and `extra`): `required` keeps its properties declared beside it (strict Ajv). */
function notBoth(keys: string[], properties: Json = {}): Json {
  return {
    not: {
      required: keys,
      properties: { ...Object.fromEntries(keys.map((key) => [key, true])), ...properties },
    },
  };
}

/** schedule or at, not both; recipients or a recipients_file; a network unless a plan_id names the plan. */
function jobRules(job: Json): Json {
  const properties = job.properties as Json;
  const plan = {
    ...(properties.plan as Json),
    anyOf: [
      { required: ["plan_id"], properties: { plan_id: true } },
      { required: ["network"], properties: { network: true } },
    ],
  };
  return {
    ...job,
    properties: { ...properties, plan },
    allOf: [
      notBoth(["schedule", "at"]),
      {
        anyOf: [
          { required: ["recipients"], properties: { recipients: { type: "array", minItems: 1 } } },
          { required: ["recipients_file"], properties: { recipients_file: true } },
        ],
      },
    ],
  };
}

/**
 * The website password rules (src/config/schema.ts checkWebsitePasswords): an item's privacy is its own, else
 * websites.defaults', else private; a password is required with privacy password (here or under defaults) and
 * refused with any other. A privacy written as a placeholder is left to config check.
 */
function websitesRules(websites: Json): Json {
  const properties = websites.properties as Json;
  const defaults = properties.defaults as Json;
  const items = properties.items as Json;
  const defaultsHave = (key: string, value: Json | true = true): Json => ({
    required: ["defaults"],
    properties: { defaults: { required: [key], properties: { [key]: value } } },
  });
  const eachItem = (rule: Json): Json => ({ properties: { items: { type: "array", items: rule } } });
  const itemNeedsPassword = (when: Json): Json =>
    eachItem(ifThen(when, { required: ["password"], properties: { password: true } }));
  const noPrivacy: Json = { not: { required: ["privacy"], properties: { privacy: true } } };
  return {
    ...websites,
    properties: {
      ...properties,
      defaults: { ...defaults, ...notBoth(["password", "privacy"], { privacy: OTHER_PRIVACY }) },
      items: {
        ...items,
        items: { ...(items.items as Json), ...notBoth(["password", "privacy"], { privacy: OTHER_PRIVACY }) },
      },
    },
    allOf: [
      // An item with a password and no privacy of its own takes the defaults' privacy: it must be password.
      ifThen(
        { not: defaultsHave("privacy", { not: OTHER_PRIVACY }) },
        eachItem({ not: { required: ["password"], properties: { password: true }, ...noPrivacy } }),
      ),
      // Without a default password, privacy password (the item's, or the defaults' for an item without one)
      // needs the item's own password.
      ifThen(
        { not: defaultsHave("password") },
        {
          allOf: [
            itemNeedsPassword({ required: ["privacy"], properties: { privacy: PASSWORD_PRIVACY } }),
            ifThen(defaultsHave("privacy", PASSWORD_PRIVACY), itemNeedsPassword(noPrivacy)),
          ],
        },
      ),
    ],
  };
}

const SUBSCHEMA_LISTS = ["anyOf", "allOf", "oneOf"];
const SUBSCHEMAS = ["not", "if", "then", "else", "items", "additionalProperties"];

/** Says `type: "object"` beside every `required` or `properties`, as Ajv's strict mode asks (strictTypes). */
function typed(node: unknown): unknown {
  if (!isObject(node)) return node;
  const out: Json = { ...node };
  if ((out.required !== undefined || out.properties !== undefined) && out.type === undefined)
    out.type = "object";
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, typed(v)]));
  }
  for (const key of SUBSCHEMAS) if (out[key] !== undefined) out[key] = typed(out[key]);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = out[key].map(typed);
  return out;
}

/**
 * Every section a config may leave out reads as `{}` when absent: its fields' own defaults apply. zod says so of a
 * section with `.prefault({})`; of one built only when a config has it (`optionalSection`, src/config/fields.ts) it
 * gives the finished value instead, with durations in milliseconds where the file writes "24h".
 */
function sectionDefaults(properties: Json, required: unknown): Json {
  const needed = new Set(Array.isArray(required) ? required : []);
  return Object.fromEntries(
    Object.entries(properties).map(([name, section]) =>
      isObject(section) && section.type === "object" && !needed.has(name)
        ? [name, Object.assign({ default: {} }, section, { default: {} })]
        : [name, section],
    ),
  );
}

export function configJsonSchema(): object {
  const { $schema: _, ...generated } = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" });
  const schema = withPlaceholders(generated) as Json;
  const properties = sectionDefaults(schema.properties as Json, schema.required);
  const purchases = properties.purchases as Json;
  return typed({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "topsync config",
    description: DESCRIPTION,
    ...schema,
    properties: {
      ...properties,
      purchases: { ...purchases, items: jobRules(purchases.items as Json) },
      websites: websitesRules(properties.websites as Json),
    },
  }) as object;
}
