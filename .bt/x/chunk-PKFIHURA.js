import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  inert
} from "./chunk-IIT3DDOC.js";

// dist/report/table.js
function renderTable(rows, columns) {
  const cells = rows.map((row) => columns.map((column) => inert(column.value(row))));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((row) => row[i].length)));
  const line = (values) => values.map((value, i) => columns[i].align === "right" ? value.padStart(widths[i]) : value.padEnd(widths[i])).join("  ").trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n") + "\n";
}
function renderJson(value) {
  return `${JSON.stringify(value, jsonReplacer, 2)}
`;
}
function jsonReplacer(_key, value) {
  if (typeof value === "bigint")
    return value.toString();
  return value;
}

export {
  renderTable,
  renderJson
};
