// src/http/undici-pool.ts loads two of undici's modules by path instead of its entry point. Checked here against the
// installed undici: the pool they make is the entry point's own Pool class, and request() answers as the entry
// point's Pool#request does (status, headers, body; a refused connection rejects with undici's error code).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openHttpPool } from "../../src/http/undici-pool.js";

describe("undici's pool, loaded without its entry point", () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        response.setHeader("x-echo-method", request.method ?? "");
        response.end(JSON.stringify({ path: request.url, body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers as the entry point's Pool does", async () => {
    const ours = await openHttpPool(origin, { connections: 2, pipelining: 1 });
    const theirs = new Pool(origin, { connections: 2, pipelining: 1 });
    try {
      const ask = { method: "POST" as const, path: "/buy?x=1", body: "phone=0803", headers: { "x-a": "1" } };
      const [a, b] = [await ours.request(ask), await theirs.request(ask)];
      expect(a.statusCode).toBe(200);
      expect(a.statusCode).toBe(b.statusCode);
      expect(a.headers["x-echo-method"]).toBe("POST");
      const [textA, textB] = [await a.body.text(), await b.body.text()];
      expect(JSON.parse(textA)).toEqual({ path: "/buy?x=1", body: "phone=0803" });
      expect(textA).toBe(textB);
    } finally {
      await ours.close();
      await theirs.close();
    }
  });

  it("is the same Pool class as the entry point's, so its options and errors are undici's", async () => {
    const { default: PoolByPath } = await import("undici/lib/dispatcher/pool.js");
    expect(PoolByPath).toBe(Pool);
    const refused = await openHttpPool("http://127.0.0.1:1", { connections: 1 });
    try {
      const error = await refused.request({ method: "GET", path: "/" }).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe("ECONNREFUSED");
    } finally {
      await refused.destroy();
    }
  });
});
