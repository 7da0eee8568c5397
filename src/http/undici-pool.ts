// undici's connection pool and its request(), loaded on their own. undici's entry point loads all of undici —
// fetch, WebSocket, EventSource, caches, cookies, mocks, proxies: most of its code, none of it used here — and a
// command that calls a service paid for it at its start (require("undici") takes 170 ms on a slow 2-core machine
// against 70 ms for these two modules; and the bundle every command reads is 380 KB smaller without the rest).
// The entry point also copies request() onto every dispatcher's prototype; here it is called on the pool
// (`request.call(pool, …)`). test/clients/undici-pool.test.ts checks these two paths against the installed undici.
import type { Dispatcher, Pool } from "undici";

/** One origin's keep-alive pool, as ServiceClient uses it. */
export interface HttpPool {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
  destroy(): Promise<void>;
}

export async function openHttpPool(origin: string, options: Pool.Options): Promise<HttpPool> {
  const [{ default: PoolClass }, { default: request }] = await Promise.all([
    import("undici/lib/dispatcher/pool.js"),
    import("undici/lib/api/api-request.js"),
  ]);
  const pool = new PoolClass(origin, options);
  return {
    request: (requestOptions) => request.call(pool, requestOptions),
    close: () => pool.close(),
    destroy: () => pool.destroy(),
  };
}
