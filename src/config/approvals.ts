// The `approvals` section: how many distinct approvers a saved plan needs (tiers by amount; a website plan that
// deletes), who they are (a name and an ed25519 public key each), and how long a plan may wait to be applied.
import * as z from "zod";
import { duration, evenWithFieldIssues, integer, MAX_SPAN_MS, money, show, text } from "./fields.js";

/** An approver's public key as `keys new` prints it: "ed25519:" and the 32 raw bytes in base64. */
const PUBLIC_KEY = /^ed25519:[A-Za-z0-9+/]{43}=$/;

/**
 * The `approvals` section's schema. Built only when a config has the section (`optionalSection`, fields.ts): most
 * configs leave it out, and building zod schemas is much of a command's start.
 */
export function buildApprovalsSchema() {
  const publicKey = text().refine((key) => PUBLIC_KEY.test(key), {
    error: (iss) =>
      `expected an ed25519 public key as \`topsync keys new\` prints it ("ed25519:" and 44 base64 characters), got ${show(iss.input)}`,
  });

  /** A spend tier: a plan whose total is above `above` needs `approvals` distinct approvers. */
  const amountRule = z.strictObject({
    above: money(),
    approvals: integer(1, 20),
  });

  /** A website plan that deletes at least one website needs `deletes` distinct approvers. */
  const deletesRule = z.strictObject({ deletes: integer(1, 20) });

  const ruleSchema = z.union([amountRule, deletesRule], {
    error: (iss) =>
      iss.input === undefined
        ? undefined
        : `expected a rule like {above: "50000.00", approvals: 1} or {deletes: 1}, got ${show(iss.input)}`,
  });

  return z
    .strictObject({
      rules: z.array(ruleSchema).prefault([]).meta({
        description:
          "Approvals a plan needs: amount tiers ({above, approvals}; the highest tier a plan's total passes counts) and, for website plans that delete, {deletes}. No rules: no approval is needed, and no spend is held.",
      }),
      approvers: z
        .record(
          z
            .string()
            .regex(
              /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
              "an approver's name is 1 to 64 letters, digits, . _ -, starting with a letter or digit",
            ),
          publicKey,
        )
        .prefault({})
        .meta({
          description: "Approver name → ed25519 public key (`topsync keys new --as NAME` prints the line).",
        }),
      plan_ttl: duration({ min: 60_000, max: MAX_SPAN_MS }).prefault("24h").meta({
        description: "How long a saved or held plan may wait for approval and apply; then it expires.",
      }),
    })
    .superRefine((approvals, ctx) => {
      const needed = Math.max(
        0,
        ...approvals.rules.map((rule) => ("approvals" in rule ? rule.approvals : rule.deletes)),
      );
      // One key under two names would let one person be two distinct approvers (and approve their own plan under
      // a name that is not its author's).
      const holder = new Map<string, string>();
      for (const [name, key] of Object.entries(approvals.approvers)) {
        const first = holder.get(key);
        if (first === undefined) holder.set(key, name);
        else
          ctx.addIssue({
            code: "custom",
            path: ["approvers", name],
            message: `has the same public key as approvals.approvers.${first}: each approver needs a key of their own (topsync keys new --as ${name})`,
          });
      }
      const named = Object.keys(approvals.approvers).length;
      if (needed > named)
        ctx.addIssue({
          code: "custom",
          path: ["approvers"],
          message: `a rule needs ${needed} distinct approvers but ${named === 0 ? "none is" : `only ${named} ${named === 1 ? "is" : "are"}`} named`,
        });
    }, evenWithFieldIssues);
}

/** A config without the section: what `buildApprovalsSchema()` makes of `{}` (test/config/sections.test.ts checks). */
export function approvalsDefaults(): ApprovalsConfig {
  return { rules: [], approvers: {}, plan_ttl: 24 * 3_600_000 };
}

export type ApprovalsConfig = z.output<ReturnType<typeof buildApprovalsSchema>>;
export type ApprovalRule = ApprovalsConfig["rules"][number];
