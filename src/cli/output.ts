// How commands print data: aligned tables for people, JSON for scripts (src/report/table.ts). Data goes to
// stdout, logs to stderr.
export { type Column, renderJson, renderTable } from "../report/table.js";

export function write(text: string): void {
  process.stdout.write(text);
}
