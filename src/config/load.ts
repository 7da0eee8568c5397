// Reading config.yaml: parse with positions, interpolate `${VAR}` in scalar values, validate with the one
// schema, and report every problem as `file:line:column: path: message` (exit code 78).
import { open, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { type Document, LineCounter, parseDocument } from "yaml";
import type * as z from "zod";
import { formatDuration } from "../duration.js";
import { cronNextFire, restrictsBothDayFields } from "../time/cron.js";
import { locate, type PathProblem, type PathSegment, toPlain } from "./document.js";
import { collapseLongLists } from "./long-lists.js";
import { closestKey, configErrorMap, knownKeys, redact, unknownKeyMessage } from "./messages.js";
import {
  type Config,
  configSchema,
  type DuplicateParams,
  formatPath,
  MAX_INLINE_RECIPIENTS,
  plainRecipient,
  type Recipient,
} from "./schema.js";

export interface ConfigIssue {
  file: string;
  /** 1-based; 0 when the problem is the file itself. */
  line: number;
  column: number;
  /** `purchases[2].plan.size`; empty for the file or the document as a whole. */
  path: string;
  message: string;
}

export function formatIssue(issue: ConfigIssue): string {
  if (issue.line === 0) return issue.message;
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.path === "" ? `${where}: ${issue.message}` : `${where}: ${issue.path}: ${issue.message}`;
}

export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
  readonly exitCode = 78;

  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.name = "ConfigError";
  }
}

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the config file. */
  file: string;
  warnings: ConfigIssue[];
  /** Where a value's path is in the file (the nearest place above it when it is missing). */
  positionOf(path: readonly PathSegment[]): { line: number; column: number };
}

/**
 * The largest config file read: far more than any real config, small enough that parsing it stays cheap.
 * Long recipient lists belong in a `recipients_file`, which is streamed.
 */
export const MAX_CONFIG_BYTES = 2 * 1024 * 1024;

const READ_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "is a directory",
};

export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  let text: string;
  const tooLarge = (size?: number) => {
    const message =
      `config file ${file} is ${size === undefined ? "" : `${size} bytes, `}more than the ${MAX_CONFIG_BYTES} bytes a config may have; ` +
      "put long recipient lists in a recipients_file (CSV)";
    return new ConfigError([{ file, line: 0, column: 0, path: "", message }]);
  };
  try {
    const found = await stat(file);
    if (found.size > MAX_CONFIG_BYTES) throw tooLarge(found.size);
    // A pipe (`-c <(envsubst < config.tpl)`, /dev/stdin) has no size until read: read up to the limit, no further
    // (/dev/zero would fill the memory).
    const read = found.isFile() ? await readFile(file) : await readAtMost(file, MAX_CONFIG_BYTES + 1);
    if (read.length > MAX_CONFIG_BYTES) throw tooLarge();
    text = read.toString("utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const reason = READ_ERRORS[code] ?? (error instanceof Error ? error.message : String(error));
    throw new ConfigError([
      { file, line: 0, column: 0, path: "", message: `cannot read config file ${file}: ${reason}` },
    ]);
  }
  return parseConfig(text, file, env);
}

/** The first `limit` bytes of a file that is not a regular one (a pipe, a device), or all of it when shorter. */
async function readAtMost(file: string, limit: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(limit);
    let length = 0;
    while (length < limit) {
      const { bytesRead } = await handle.read(buffer, length, limit - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The YAML document and its plain values. Long lists of simple items are read by long-lists.ts, not the parser,
 * when the parser confirms where they are; anything unexpected (a parse error or warning, a placeholder not where
 * it was put) and the original text is parsed as it is, so messages are the parser's own.
 */
function parseYaml(text: string, env: NodeJS.ProcessEnv) {
  const parse = (source: string) => {
    const lines = new LineCounter();
    const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    return { doc, lines };
  };
  const collapsed = collapseLongLists(text);
  if (collapsed) {
    const { doc } = parse(collapsed.text);
    if (doc.errors.length === 0 && doc.warnings.length === 0) {
      const plain = toPlain(doc, collapsed.text, env, collapsed.runs);
      if (plain.runsFound === collapsed.runs.size) {
        // Positions in the file, for offsets in the text parsed.
        const file = fileLines(text);
        const lines = { linePos: (offset: number) => file.linePos(collapsed.originalOffset(offset)) };
        return { doc, lines, plain };
      }
    }
  }
  const { doc, lines } = parse(text);
  return { doc, lines, plain: toPlain(doc, text, env) };
}

/** Line starts of a text, as the parser's LineCounter records them. */
function fileLines(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines.addNewLine(at + 1);
  return lines;
}

/** Pure: validates config text as if read from `file` (which names issues and anchors relative paths). */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const { doc, lines, plain } = parseYaml(text, env);
  const at = (offset: number, issuePath: string, message: string): ConfigIssue => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col, path: issuePath + subjectOf(issuePath, plain.value), message };
  };
  const finish = (issues: ConfigIssue[]) =>
    issues
      .map((issue) => ({
        ...issue,
        path: redact(issue.path, plain.secrets),
        message: redact(issue.message, plain.secrets),
      }))
      .sort((a, b) => a.line - b.line || a.column - b.column);

  const yamlWarnings = doc.warnings.map((warning) => at(warning.pos[0], "", warning.message));
  if (doc.errors.length > 0) {
    throw new ConfigError(finish(doc.errors.map((error) => at(error.pos[0], "", error.message))));
  }
  if (doc.contents === null) throw new ConfigError([at(0, "", "the config file is empty")]);
  if (plain.exhausted) {
    const { offset, path: where, message } = plain.exhausted;
    throw new ConfigError(finish([at(offset, formatPath(where), message)]));
  }

  const envIssues = plain.problems.map((problem) =>
    at(problem.offset, formatPath(problem.path), problem.message),
  );
  const lists = shortenRecipientLists(plain.value);
  const result = configSchema.safeParse(lists.value, { error: configErrorMap, jitless: true });
  const schemaIssues = result.success
    ? []
    : withoutEchoes(result.error.issues, plain.problems).flatMap((issue) => describeIssue(issue, doc, at));
  const issues = [...envIssues, ...schemaIssues];
  if (!result.success || issues.length > 0) throw new ConfigError(finish(issues));

  const config = anchorPaths(lists.restore(result.data), path.dirname(path.resolve(file)));
  const warnings = [
    ...yamlWarnings,
    ...domainWarnings(config, doc, at),
    ...webhooksWarnings(field(plain.value, "webhooks"), doc, at),
    ...caFileWarnings(config, doc, at),
  ];
  const positionOf = (valuePath: readonly PathSegment[]) => {
    const { line, col } = lines.linePos(locate(doc, valuePath).offset);
    return { line, column: col };
  };
  return { config, file: path.resolve(file), warnings: finish(warnings), positionOf };
}

type At = (offset: number, path: string, message: string) => ConfigIssue;

/** Inline lists shorter than this go to the schema whole: walking them costs it little. */
const LONG_LIST = 64;

/**
 * A long inline recipient list (10,000 phones) is most of what the schema walks in a config, some 4 µs a phone,
 * and most of a big command's start. A job's list of plain phone strings, each one the schema takes, is read here
 * by `plainRecipient` (the schema's own rule) and shown to the schema as its first phone only; `restore` puts the
 * whole list back into the schema's output. A list with anything else in it (an object, a number, a phone the
 * schema refuses) or longer than the schema allows goes to the schema whole, so each problem is reported by the
 * schema, at its place in the file.
 */
export function shortenRecipientLists(value: unknown): { value: unknown; restore(config: Config): Config } {
  const jobs = field(value, "purchases");
  const lists = new Map<number, Recipient[]>();
  if (Array.isArray(jobs)) {
    jobs.forEach((job, index) => {
      const recipients: unknown = field(job, "recipients");
      if (!Array.isArray(recipients) || recipients.length < LONG_LIST) return;
      if (recipients.length > MAX_INLINE_RECIPIENTS) return;
      const read: Recipient[] = [];
      for (const item of recipients) {
        const recipient = plainRecipient(item);
        if (recipient === undefined) return;
        read.push(recipient);
      }
      lists.set(index, read);
    });
  }
  if (lists.size === 0) return { value, restore: (config) => config };
  const shortened = (jobs as unknown[]).map((job, index) =>
    lists.has(index)
      ? { ...(job as object), recipients: (field(job, "recipients") as unknown[]).slice(0, 1) }
      : job,
  );
  return {
    value: { ...(value as object), purchases: shortened },
    restore: (config) => ({
      ...config,
      purchases: config.purchases.map((job, index) => {
        const recipients = lists.get(index);
        return recipients ? { ...job, recipients } : job;
      }),
    }),
  };
}

/**
 * What a path inside a list is about, by the name the user gave it: ` (job "nightly")` after
 * `purchases[1].schedule`, ` (website "shop.example.com")` after `websites.items[3].name`. Empty otherwise, and
 * when the issue is about that name itself.
 */
function subjectOf(issuePath: string, value: unknown): string {
  const match = /^(purchases|websites\.items)\[(\d+)\]/.exec(issuePath);
  if (!match) return "";
  const list =
    match[1] === "purchases" ? field(value, "purchases") : field(field(value, "websites"), "items");
  const item = Array.isArray(list) ? list[Number(match[2])] : undefined;
  const [kind, key] = match[1] === "purchases" ? ["job", "name"] : ["website", "domain"];
  if (issuePath.slice(match[0].length) === `.${key}`) return ""; // the message is about the name itself
  const name = field(item, key);
  return typeof name === "string" && name.trim() !== "" ? ` (${kind} ${JSON.stringify(name.trim())})` : "";
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * Drops issues that only repeat another: anything at a value whose interpolation failed, and "is required"
 * for a key the user did write, misspelt (the unknown-key issue already says "did you mean").
 */
function withoutEchoes(
  found: readonly z.core.$ZodIssue[],
  problems: readonly PathProblem[],
): z.core.$ZodIssue[] {
  const issues = found.flatMap(throughUnions);
  const misspelt = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== "unrecognized_keys") continue;
    const known = knownKeys(configSchema, issue.path);
    for (const key of issue.keys) {
      const meant = closestKey(key, known);
      if (meant !== undefined) misspelt.add(formatPath([...issue.path, meant]));
    }
  }
  return issues.filter(
    (issue) =>
      !isUnder(issue.path, problems) &&
      !(
        issue.code === "invalid_type" &&
        issue.message === "is required" &&
        misspelt.has(formatPath(issue.path))
      ),
  );
}

/**
 * A union whose input had the type of exactly one of its forms (a mapping given for `timeout`) reports that
 * form's own issues, at their own paths; otherwise the union's message stands.
 */
function throughUnions(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union") return [issue];
  const typed = issue.errors.filter(
    (branch) =>
      branch.length > 0 && !branch.some((inner) => inner.path.length === 0 && inner.code === "invalid_type"),
  );
  if (typed.length !== 1) return [issue];
  return typed[0]!.flatMap((inner) => throughUnions({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** Whether an issue sits at or below a value whose interpolation failed. */
function isUnder(issuePath: readonly PropertyKey[], problems: readonly PathProblem[]): boolean {
  return problems.some(
    (problem) =>
      problem.path.length <= issuePath.length && problem.path.every((segment, i) => segment === issuePath[i]),
  );
}

function describeIssue(issue: z.core.$ZodIssue, doc: Document, at: At): ConfigIssue[] {
  if (issue.code === "unrecognized_keys") {
    const known = knownKeys(configSchema, issue.path);
    return issue.keys.map((key) => {
      const keyPath = [...issue.path, key];
      const place = locate(doc, keyPath);
      return at(place.keyOffset ?? place.offset, formatPath(keyPath), unknownKeyMessage(key, known));
    });
  }
  const place = locate(doc, issue.path);
  let message = issue.message;
  if (message === "is required" && place.empty) message = "is empty, but a value is required";
  const duplicate =
    issue.code === "custom" ? (issue.params as Partial<DuplicateParams> | undefined)?.duplicate : undefined;
  if (duplicate) {
    const [first, second] = duplicate.paths.map(
      (p) => `line ${at(locate(doc, p).offset, "", "").line} (${formatPath(p)})`,
    );
    message = `${duplicate.what} is declared twice: ${first} and ${second}`;
  }
  return [at(place.offset, formatPath(issue.path), message)];
}

/** node-cron fires only on days matching both restricted day fields; crontab fires on either. */
function bothDayFieldsWarning(expression: string, timeZone: string): string | undefined {
  if (!restrictsBothDayFields(expression)) return undefined;
  const next = cronNextFire(expression, timeZone, new Date());
  return (
    `"${expression}" restricts both day-of-month and day-of-week: topsync (node-cron) fires only on days ` +
    "that match both, not on days that match either as crontab does" +
    (next ? ` (next fire ${next.toISOString()})` : " (it never fires)") +
    "; for either, write two jobs, one per day field"
  );
}

/** A one-off time already past: it fires only for a job topsync saw before it, and only within catch_up. */
function atPassedWarning(at: Date, catchUpMs: number, now: Date): string | undefined {
  if (at.getTime() > now.getTime()) return undefined;
  const tooLate = now.getTime() - at.getTime() >= catchUpMs;
  return (
    `${at.toISOString()} has passed: ` +
    (tooLate
      ? `it is more than catch_up (${formatDuration(catchUpMs)}) ago, so it will not fire`
      : "it will not fire for a job topsync first sees now (a one-off time before the job was first seen " +
        `never fires); a job seen before it fires once, within catch_up (${formatDuration(catchUpMs)})`)
  );
}

/** Relative `recipients_file` and `ca_file` paths are relative to the config file, like any path written in it. */
function anchorPaths(config: Config, directory: string): Config {
  const anchored = <T extends { ca_file?: string }>(service: T): T =>
    service.ca_file === undefined
      ? service
      : { ...service, ca_file: path.resolve(directory, service.ca_file) };
  return {
    ...config,
    reseller: anchored(config.reseller),
    analytics: anchored(config.analytics),
    purchases: config.purchases.map((job) =>
      job.recipients_file === undefined
        ? job
        : { ...job, recipients_file: path.resolve(directory, job.recipients_file) },
    ),
  };
}

/**
 * A `webhooks` section with settings but no `enabled` runs no receiver (it is off unless enabled): say so, since
 * the provider's deliveries would otherwise fail with nothing in topsync's output to explain why. An explicit
 * `enabled: false` is the operator's choice and needs no warning.
 */
function webhooksWarnings(section: unknown, doc: Document, at: At): ConfigIssue[] {
  if (section === null || typeof section !== "object" || Array.isArray(section)) return [];
  const keys = Object.keys(section);
  if (keys.length === 0 || keys.includes("enabled")) return [];
  const message =
    "has settings but no `enabled: true`, so the daemon starts no webhook receiver and the provider's " +
    "notifications are not received; add `enabled: true` (or `enabled: false` to keep it off without this warning)";
  return [at(locate(doc, ["webhooks"]).offset, "webhooks", message)];
}

/** A `ca_file` beside a plain-HTTP `base_url` is never read: the operator meant https, or keeps a stale setting. */
function caFileWarnings(config: Config, doc: Document, at: At): ConfigIssue[] {
  return (["reseller", "analytics"] as const).flatMap((service) => {
    const { ca_file: caFile, base_url: baseUrl } = config[service];
    if (caFile === undefined || new URL(baseUrl).protocol !== "http:") return [];
    const message = `is not used: ${service}.base_url is plain http, so no certificate is checked`;
    return [at(locate(doc, [service, "ca_file"]).offset, `${service}.ca_file`, message)];
  });
}

function domainWarnings(config: Config, doc: Document, at: At): ConfigIssue[] {
  const websites = config.websites.items.flatMap((item, index) => {
    if (item.declared_domain === item.domain) return [];
    const itemPath: PathSegment[] = ["websites", "items", index, "domain"];
    const message = `${JSON.stringify(item.declared_domain)} is normalised to ${JSON.stringify(item.domain)}`;
    return [at(locate(doc, itemPath).offset, formatPath(itemPath), message)];
  });
  const warn = (issuePath: PathSegment[], message: string) =>
    at(locate(doc, issuePath).offset, formatPath(issuePath), message);
  const schedules = config.purchases.flatMap((job, index) => {
    const found: ConfigIssue[] = [];
    if (job.schedule !== undefined) {
      const message = bothDayFieldsWarning(job.schedule, job.timezone ?? config.timezone);
      if (message) found.push(warn(["purchases", index, "schedule"], message));
    }
    if (job.at !== undefined) {
      const message = atPassedWarning(job.at, job.catch_up, new Date());
      if (message) found.push(warn(["purchases", index, "at"], message));
    }
    return found;
  });
  const loop =
    config.websites.schedule === undefined
      ? undefined
      : bothDayFieldsWarning(config.websites.schedule, config.timezone);
  return [...websites, ...schedules, ...(loop ? [warn(["websites", "schedule"], loop)] : [])];
}
