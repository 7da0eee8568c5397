// The two modules of undici that src/http/undici-pool.ts loads by path (undici publishes types for its entry
// point only). Their exports are those of the entry point's Pool and Dispatcher#request.
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";

  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
