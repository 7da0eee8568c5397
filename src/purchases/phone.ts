// Phone numbers in the one form the ledger keeps: national, 11 digits (`+2348031234567` → `08031234567`).
// Validity follows Nigeria's national numbering plan as libphonenumber-js's full metadata has it: a number
// must be a valid mobile number there, so toll-free (0800), UAN (0700) and unallocated prefixes are refused.
import { parsePhoneNumberFromString } from "libphonenumber-js/max";

export type PhoneCheck = { ok: true; phone: string } | { ok: false; reason: string };

/** What people paste: digits, an optional leading +, spaces, dots, dashes and brackets ("+234 (0) 803 …"). */
const PHONE_TEXT = /^\+?[\d\s().-]+$/;
// Written as patterns: real-looking example numbers would be masked in the message itself.
const EXPECTED =
  "expected 11 digits starting 07, 08 or 09 (0XXXXXXXXXX), or +234 and 10 digits (+234XXXXXXXXXX)";

const TYPE_NAMES: Record<string, string> = {
  TOLL_FREE: "a toll-free number",
  UAN: "a universal access number",
  PREMIUM_RATE: "a premium-rate number",
  SHARED_COST: "a shared-cost number",
  FIXED_LINE: "a fixed-line number",
  VOIP: "a VoIP number",
  PAGER: "a pager number",
  PERSONAL_NUMBER: "a personal number",
  VOICEMAIL: "a voicemail number",
};

/**
 * Verdicts on national 11-digit numbers by their first seven characters: the numbering plan decides validity and
 * type of a Nigerian number of that length from its leading national digits (at most five in the metadata), so a
 * CSV of a million rows parses each prefix once instead of running the library a million times.
 */
const byPrefix = new Map<string, PhoneCheck>();
const PREFIX_CACHE_LIMIT = 10_000;
const CANONICAL = /^0\d{10}$/;

export function normalisePhone(input: string): PhoneCheck {
  const text = input.trim();
  if (!CANONICAL.test(text)) return check(text);
  const prefix = text.slice(0, 7);
  let verdict = byPrefix.get(prefix);
  if (verdict === undefined) {
    verdict = check(text);
    if (byPrefix.size >= PREFIX_CACHE_LIMIT) byPrefix.clear();
    byPrefix.set(prefix, verdict);
  }
  return verdict.ok ? { ok: true, phone: text } : verdict;
}

function check(text: string): PhoneCheck {
  if (!PHONE_TEXT.test(text)) return invalid(EXPECTED);
  // "+234 (0) 803…" and "+23408031234567": the trunk 0 written after the country code is dropped.
  const compact = text.replace(/[\s().-]/g, "").replace(/^\+?2340(?=\d{10}$)/, "+234");
  const number = parsePhoneNumberFromString(compact, "NG");
  if (number?.countryCallingCode !== "234") return invalid(EXPECTED);
  const national = `0${number.nationalNumber}`;
  if (national.length !== 11) return invalid(`expected 11 digits; ${EXPECTED}`);
  if (!number.isValid()) {
    return invalid(`${national.slice(0, 4)}… is not a number in the Nigerian numbering plan (${EXPECTED})`);
  }
  const type = number.getType();
  if (type !== "MOBILE" && type !== "FIXED_LINE_OR_MOBILE") {
    const what = (type && TYPE_NAMES[type]) ?? "not a mobile number";
    return invalid(`${national.slice(0, 4)}… is ${what}, not a mobile number`);
  }
  return { ok: true, phone: national };
}

function invalid(why: string): PhoneCheck {
  return { ok: false, reason: `invalid phone number: ${why}` };
}
