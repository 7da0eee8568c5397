import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  phoneAgrees,
  visiblePhone
} from "./chunk-NFUL76TY.js";
import {
  parseMoney
} from "./chunk-57HFVDAX.js";

// dist/purchases/verify-check.js
function verifyDisagreements(expected, verification) {
  const problems = [];
  if (!verification.envelopeOk)
    problems.push("the answer's status is false");
  if (verification.reference !== expected.reference)
    problems.push(`it names reference ${verification.reference}, not ${expected.reference}`);
  const shown = verification.transaction.phone_number;
  if (shown !== void 0 && (verification.phone === void 0 || !phoneAgrees(verification.phone, expected.phone)))
    problems.push("it names another phone number");
  if (verification.amount !== void 0 && !verification.amount.eq(parseMoney(expected.amount)))
    problems.push(`it names amount ${verification.amount.toFixed(2)}, not the ${expected.amount} charged`);
  return problems;
}
function sameVisibleDigits(shown, ours) {
  const visible = visiblePhone(shown);
  return visible !== void 0 && phoneAgrees(visible, ours);
}

export {
  verifyDisagreements,
  sameVisibleDigits
};
