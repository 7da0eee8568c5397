// The sandbox's notification receivers over HTTP, as `topsync sandbox` serves them: Slack-, Telegram- and
// webhook-compatible endpoints that record what they got, scripted 429 and 5xx answers set through the admin
// endpoint, and the record read back from it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 2 });
});
afterAll(() => sandbox.close());

async function post(path: string, body: unknown) {
  const answer = await fetch(`${sandbox.receivers.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: answer.status, retryAfter: answer.headers.get("retry-after"), text: await answer.text() };
}

describe("the sandbox's notification receivers", () => {
  it("answer as Slack, Telegram and a webhook do, with scripted faults, and record every request", async () => {
    await post("/__admin/reset", {});
    await post("/__admin/faults", [
      { kind: "slack", status: 429, retryAfter: 3 },
      { kind: "telegram", status: 429, retryAfter: 7 },
      { kind: "webhook", status: 502, times: 2 },
    ]);
    expect(await post("/slack/T0/B0/token", { text: "a" })).toMatchObject({
      status: 429,
      retryAfter: "3",
      text: "rate_limited",
    });
    expect(await post("/slack/T0/B0/token", { text: "a" })).toMatchObject({ status: 200, text: "ok" });
    const limited = await post("/bot123:abc/sendMessage", { chat_id: "-100", text: "b" });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text)).toEqual({
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 7",
      parameters: { retry_after: 7 },
    });
    const sent = await post("/bot123:abc/sendMessage", { chat_id: "-100", text: "b" });
    expect(JSON.parse(sent.text)).toMatchObject({ ok: true, result: { chat: { id: "-100" }, text: "b" } });
    expect((await post("/bot123:abc/sendMessage", { chat_id: "-100", text: "" })).status).toBe(400);
    expect((await post("/hooks/audit", { x: 1 })).status).toBe(502);
    expect((await post("/hooks/audit", { x: 1 })).status).toBe(502);
    expect(await post("/hooks/audit", { x: 1 })).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await post("/elsewhere", {})).status).toBe(404);

    const record = (await (await fetch(`${sandbox.receivers.url}/__admin/received`)).json()) as {
      requests: Array<{ kind: string; status: number; path: string; body: string }>;
    };
    expect(record.requests.map((r) => `${r.kind} ${r.status}`)).toEqual([
      "slack 429",
      "slack 200",
      "telegram 429",
      "telegram 200",
      "telegram 400",
      "webhook 502",
      "webhook 502",
      "webhook 200",
    ]);
    expect(sandbox.receivers.received().map((r) => r.kind)).toEqual(["slack", "telegram", "webhook"]);
  });
});
