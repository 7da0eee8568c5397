// An amount given on the command line (buy --max-price, sandbox --wallet), read as the config reads money.
import { money } from "../config/fields.js";
import { formatMoney } from "../money.js";

/**
 * `text` as the ledger stores an amount ("350.00"), or undefined when it is not one the config would take (below 0,
 * more than two decimal places, beyond what the ledger holds) or writes thousands separators (is "1,000" a thousand
 * or one?). The caller says what is wrong, naming its flag.
 */
export function amountFlag(text: string): string | undefined {
  const parsed = money().safeParse(text);
  return parsed.success && !text.includes(",") ? formatMoney(parsed.data) : undefined;
}
