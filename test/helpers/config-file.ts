// Kept for the tests that import it from here; the one implementation is in config.ts.
export { writeConfigFile } from "./config.js";
