// A plan id given without its network: the network is the one whose live plans list the id; an id listed
// under two networks is refused, naming both.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log/logger.js";
import { loadCatalogue } from "../../src/purchases/catalogue-cache.js";
import { type Catalogue, requestedNetwork, resolvePurchase } from "../../src/purchases/resolve.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { issues, load, yaml } from "../config/helpers.js";
import { resellerFor } from "../helpers/clients.js";

let sandbox: Sandbox;
let catalogue: Catalogue;
beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 3 });
  catalogue = await loadCatalogue(resellerFor(sandbox), createLogger({ level: "silent" }));
});
afterAll(() => sandbox.close());

const request = (plan_id: string, network = "") => ({
  network,
  plan_id,
  phone: "08051234567",
  ported: false,
});

describe("a plan id without a network", () => {
  it("is accepted by config check, a selector without a network is not", () => {
    const job = (plan: string) =>
      yaml("purchases:", "  - name: j", `    plan: ${plan}`, '    recipients: ["08051234567"]');
    expect(load(job('{ plan_id: "203" }')).config.purchases[0]!.plan).toEqual({
      kind: "id",
      network: "",
      plan_id: "203",
    });
    expect(issues(job("{ size: 1GB }"))).toEqual([
      'config.yaml:9:5: purchases[0].plan.network (job "j"): is required with a selector (size, type, name_contains); only a plan_id finds its own network',
    ]);
  });

  it("finds the network from the live list and buys from it", () => {
    const glo = requestedNetwork(catalogue, request("203"));
    expect(glo).toMatchObject({ ok: true, network: { name: "GLO" } });
    const resolved = resolvePurchase(request("203"), catalogue);
    expect(resolved).toMatchObject({ ok: true, network: { name: "GLO" }, plan: { id: "203" } });
    expect(resolvePurchase(request("999999"), catalogue)).toMatchObject({
      ok: false,
      code: "plan_not_found",
      reason: 'no network lists plan id "999999"',
    });
  });

  it("refuses an id listed under two networks, naming both", () => {
    const mtn = catalogue.networks.find((n) => n.name === "MTN")!;
    const glo = catalogue.networks.find((n) => n.name === "GLO")!;
    const copied = catalogue.plans.get(glo.id)!.find((p) => p.id === "203")!;
    const twice: Catalogue = {
      networks: catalogue.networks,
      plans: new Map([...catalogue.plans, [mtn.id, [...catalogue.plans.get(mtn.id)!, copied]]]),
    };
    expect(resolvePurchase(request("203"), twice)).toEqual({
      ok: false,
      code: "ambiguous_plan",
      reason: 'plan id "203" is listed under MTN and GLO; give the network',
    });
    // With the network named, the same id is not ambiguous.
    expect(resolvePurchase(request("203", "GLO"), twice)).toMatchObject({
      ok: true,
      network: { name: "GLO" },
    });
  });

  it("says when the plans that might list it could not be read", () => {
    const mtn = catalogue.networks.find((n) => n.name === "MTN")!;
    const partial: Catalogue = {
      networks: catalogue.networks,
      plans: new Map([...catalogue.plans].filter(([id]) => id !== mtn.id)),
    };
    expect(resolvePurchase(request("101"), partial)).toMatchObject({
      ok: false,
      code: "catalogue_unavailable",
    });
  });
});
