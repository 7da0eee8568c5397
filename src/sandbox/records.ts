// The records the sandbox keeps for tests to inspect: wallet debits and refunds, the request log,
// website mutations, and stored websites (write-only fields included).

export interface Debit {
  reference: string;
  network_id: string;
  plan_id: string;
  phone_number: string;
  /** Naira, two decimals: "305.00". */
  amount: string;
  at: string;
}

export interface Refund {
  reference: string;
  amount: string;
  at: string;
}

export type ServiceName = "reseller" | "analytics";

export interface RequestLogEntry {
  service: ServiceName;
  method: string;
  /** The path without the query string (see `query`). */
  path: string;
  query: string;
  /** The HTTP status answered; null when no response was sent (hang or connection reset). */
  status: number | null;
  /** The injected fault, when one was. */
  fault?: string;
  at: string;
}

export interface WebsiteMutation {
  method: string;
  path: string;
  fields: Record<string, string>;
  /** The HTTP status answered; null when no response was sent (hang or connection reset). */
  status: number | null;
  at: string;
}

export type Privacy = 0 | 1 | 2;
export type Flag = 0 | 1;

/** What a client can set on a website (the password and exclude_params are write-only remotely). */
export interface WebsiteInput {
  domain: string;
  privacy: Privacy;
  password: string | null;
  email: Flag;
  exclude_bots: Flag;
  exclude_params: string | null;
  exclude_ips: string | null;
}

export interface WebsiteRecord extends WebsiteInput {
  id: number;
  favorite: Flag;
  created_at: string;
  updated_at: string;
}
