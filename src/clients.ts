// Builds the two API clients from config: one pooled ServiceClient each, wired to the logger and metrics.
import { AnalyticsClient } from "./analytics/client.js";
import type { Clock } from "./clock.js";
import type { ServiceConfig } from "./config/index.js";
import type { ServiceName } from "./http/errors.js";
import type { CallObserver } from "./http/service-client.js";
import { ServiceClient } from "./http/service-client.js";
import type { Logger } from "./log/logger.js";
import { ResellerClient } from "./reseller/client.js";

export interface ClientDeps {
  logger: Logger;
  clock?: Clock;
  observer?: CallObserver;
  onServerDate?: (date: string, receivedAt: number) => void;
}

export function createServiceClient(
  service: ServiceName,
  config: ServiceConfig,
  deps: ClientDeps,
): ServiceClient {
  return new ServiceClient({
    service,
    baseUrl: config.base_url,
    apiKey: config.api_key,
    timeout: config.timeout,
    maxBody: config.max_body,
    concurrency: config.concurrency,
    rateLimit: config.rate_limit,
    burst: config.burst,
    retry: config.retry,
    clock: deps.clock,
    observer: deps.observer,
    onServerDate: deps.onServerDate,
    caFile: config.ca_file,
    onRetry: (call, error, attempt, delayMs) =>
      deps.logger.warn(
        { service: call.service, endpoint: call.endpoint, code: error.code, attempt, delay_ms: delayMs },
        `retrying ${call.method} ${call.path} after ${error.code}`,
      ),
  });
}

export function createResellerClient(config: ServiceConfig, deps: ClientDeps): ResellerClient {
  return new ResellerClient(createServiceClient("reseller", config, deps));
}

export function createAnalyticsClient(config: ServiceConfig, deps: ClientDeps): AnalyticsClient {
  return new AnalyticsClient(createServiceClient("analytics", config, deps));
}
