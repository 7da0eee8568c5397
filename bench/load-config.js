// Loads one config file in this (fresh) process and prints how long loadConfig took, cold, as a command has it.
import { loadConfig } from "../dist/config/index.js";

const { file } = JSON.parse(process.argv[2]);
const started = performance.now();
await loadConfig(file, process.env);
console.log(JSON.stringify({ ms: performance.now() - started }));
