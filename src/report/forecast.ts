// `topsync plan` as one call: read what the plan needs (SELECTs and GETs only), then decide it (pure).
import { buildForecast } from "./forecast-build.js";
import { type ForecastSources, readForecastInputs } from "./forecast-gather.js";
import type { Forecast } from "./forecast-model.js";

export type { ForecastSources } from "./forecast-gather.js";

export async function makeForecast(
  sources: ForecastSources,
  window: { now: Date; windowMs: number; keepItems?: number },
): Promise<Forecast> {
  const to = new Date(window.now.getTime() + window.windowMs);
  return buildForecast(
    await readForecastInputs(sources, { now: window.now, to, keepItems: window.keepItems }),
  );
}
