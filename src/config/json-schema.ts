// The JSON Schema of config.yaml for editors (`topsync config schema`), generated from the zod schema.
import { z } from "zod";
import { configSchema } from "./schema.js";

const DESCRIPTION =
  "config.yaml of topsync. $" + "{VAR} and $" + "{VAR:-default} in values are replaced from the environment.";

export function configJsonSchema(): object {
  const { $schema: _, ...generated } = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "topsync config",
    description: DESCRIPTION,
    ...generated,
  };
}
