// Phone numbers in the one form the ledger keeps: national, 11 digits (`+2348031234567` → `08031234567`).

export type PhoneCheck = { ok: true; phone: string } | { ok: false; reason: string };

export function normalisePhone(input: string): PhoneCheck {
  // Spaces, dots, dashes and parentheses between digit groups, and +234 (0) 803…, as people write them.
  const digits = input.replace(/[\s().-]/g, "");
  let national: string | undefined;
  if (/^0\d{10}$/.test(digits)) national = digits;
  else if (/^\+?2340?\d{10}$/.test(digits)) national = `0${digits.slice(-10)}`;
  else if (/^[789]\d{9}$/.test(digits)) national = `0${digits}`;
  if (national === undefined) {
    return {
      ok: false,
      // The examples are written as patterns: real-looking numbers would be masked in the message itself.
      reason:
        "invalid phone number: expected 11 digits starting 07, 08 or 09 (0XXXXXXXXXX), or +234 and 10 digits (+234XXXXXXXXXX)",
    };
  }
  if (!/^0[789][01]/.test(national)) {
    return { ok: false, reason: "invalid phone number: not a Nigerian mobile number (07x, 08x or 09x)" };
  }
  return { ok: true, phone: national };
}
