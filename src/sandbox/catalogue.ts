// The sandbox reseller's networks and data plans: the four Nigerian networks, with plan types, size texts
// and indicative 2025 prices as real reseller platforms list them (docs/services.md).

export interface SandboxNetwork {
  code: string;
  name: string;
  other_name: string;
}

export interface SandboxPlan {
  id: string;
  price: string;
  size: string;
  name: string;
  type: string;
  network: { id: string; name: string; other_name: string; code: string };
}

export const SANDBOX_NETWORKS: readonly SandboxNetwork[] = Object.freeze([
  Object.freeze({ code: "1", name: "MTN", other_name: "mtn" }),
  Object.freeze({ code: "2", name: "GLO", other_name: "glo" }),
  Object.freeze({ code: "3", name: "9MOBILE", other_name: "t2" }),
  Object.freeze({ code: "4", name: "AIRTEL", other_name: "airtel" }),
]);

const SME = "SME";
const CG = "CORPORATE GIFTING";
const DG = "DIRECT GIFTING";

type PlanRow = [id: string, price: string, size: string, name: string, type: string];

const PLAN_ROWS: Record<string, PlanRow[]> = {
  "1": [
    ["101", "168.00", "500MB", "500MB for 30 Days", CG],
    ["102", "305.00", "1GB", "1GB for 30 Days", CG],
    ["103", "580.00", "2GB", "2GB for 30 Days", CG],
    ["104", "1405.00", "5GB", "5GB for 30 Days", CG],
    ["105", "2780.00", "10GB", "10GB for 30 Days", CG],
    ["106", "140.00", "500", "500MB SME 30 Days", SME],
    ["107", "270.00", "1.0GB", "1.0GB SME 30 Days", SME],
    ["108", "810.00", "3GB", "3GB SME 30 Days", SME],
    ["109", "490.00", "1.5GB", "1.5GB 2 Days", DG],
    ["110", "1470.00", "2.6GB", "2.6GB 30 Days (1.1GB + 1.5GB Night)", DG],
    ["111", "500.00", "1GB+1GB", "1GB+1GB Day and Night 7 Days", DG],
    ["112", "5400.00", "20GB", "20GB for 30 Days", DG],
  ],
  "2": [
    ["201", "95.00", "200", "200MB for 14 Days", CG],
    ["202", "235.00", "500MB", "500MB for 30 Days", CG],
    ["203", "465.00", "1GB", "1GB for 30 Days", CG],
    ["204", "930.00", "2GB", "2GB for 30 Days", CG],
    ["205", "1395.00", "3GB", "3GB for 30 Days", CG],
    ["206", "2325.00", "5GB", "5GB for 30 Days", CG],
    ["207", "4650.00", "10GB", "10GB for 30 Days", CG],
    ["208", "430.00", "1.0GB", "1.0GB SME 7 Days", SME],
    ["209", "1000.00", "2.9GB", "2.9GB 30 Days (1.9GB + 1GB Night)", DG],
  ],
  "3": [
    ["301", "165.00", "500MB", "500MB for 30 Days", CG],
    ["302", "330.00", "1GB", "1GB for 30 Days", CG],
    ["303", "495.00", "1.5GB", "1.5GB for 30 Days", CG],
    ["304", "660.00", "2GB", "2GB for 30 Days", CG],
    ["305", "990.00", "3GB", "3GB for 30 Days", CG],
    ["306", "1485.00", "4.5GB", "4.5GB for 30 Days", CG],
    ["307", "1650.00", "5GB", "5GB for 30 Days", CG],
    ["308", "3300.00", "10GB", "10GB for 30 Days", CG],
    ["309", "310.00", "1.0GB", "1.0GB SME 30 Days", SME],
  ],
  "4": [
    ["401", "105.00", "100", "100MB for 1 Day", CG],
    ["402", "320.00", "300MB", "300MB for 2 Days", CG],
    ["403", "505.00", "500MB", "500MB for 7 Days", CG],
    ["404", "822.00", "1GB", "1GB for 7 Days", CG],
    ["405", "1480.00", "2GB", "2GB for 30 Days", CG],
    ["406", "1970.00", "3GB", "3GB for 30 Days", CG],
    ["407", "2460.00", "4GB", "4GB for 30 Days", CG],
    ["408", "4900.00", "10GB", "10GB for 30 Days", CG],
    ["409", "1000.00", "1.5GB", "1.5GB for 30 Days", DG],
    ["410", "1500.00", "Unlimited", "Unlimited Social 30 Days", DG],
  ],
};

/** Frozen, so a test or handler cannot change the catalogue other sandboxes share. */
function buildPlans(network: SandboxNetwork): SandboxPlan[] {
  const networkObject = Object.freeze({
    id: network.code,
    name: network.name,
    other_name: network.other_name,
    code: network.code,
  });
  return (PLAN_ROWS[network.code] ?? []).map(([id, price, size, name, type]) =>
    Object.freeze({ id, price, size, name, type, network: networkObject }),
  );
}

/** Every plan of every network, in list order; plan ids are unique across networks. */
export const SANDBOX_PLANS: readonly SandboxPlan[] = Object.freeze(SANDBOX_NETWORKS.flatMap(buildPlans));

export function findNetwork(code: string): SandboxNetwork | undefined {
  return SANDBOX_NETWORKS.find((network) => network.code === code);
}

export function plansOfNetwork(code: string): SandboxPlan[] {
  return SANDBOX_PLANS.filter((plan) => plan.network.code === code);
}

export function findPlan(id: string): SandboxPlan | undefined {
  return SANDBOX_PLANS.find((plan) => plan.id === id);
}

/** How a plan's size reads in a purchase message: "500" (megabytes) reads "500MB". */
export function sizeLabel(plan: SandboxPlan): string {
  return /^\d+$/.test(plan.size) ? `${plan.size}MB` : plan.size;
}

/** The plan at its price now: the catalogue's, or the one `planPrices` sets for it. */
export function pricedPlan(plan: SandboxPlan, prices: Readonly<Record<string, string>>): SandboxPlan {
  const price = prices[plan.id];
  return price === undefined ? plan : Object.freeze({ ...plan, price });
}
