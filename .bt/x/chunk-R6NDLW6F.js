import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/report/document.js
function everyDay(first, last) {
  const days = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= end; t += 864e5) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}
var MAX_TABLE_ROWS = 200;
function table(name, columns, rows) {
  return {
    kind: "table",
    name,
    columns,
    rows: rows.slice(0, MAX_TABLE_ROWS),
    omitted: Math.max(0, rows.length - MAX_TABLE_ROWS)
  };
}
function text(value, tone) {
  return tone ? { kind: "text", text: value, tone } : { kind: "text", text: value };
}
function left(header) {
  return { header };
}
function right(header) {
  return { header, align: "right" };
}
function omittedNote(omitted) {
  return `\u2026 and ${omitted} more ${omitted === 1 ? "row" : "rows"} (--format json has them all)`;
}

export {
  everyDay,
  table,
  text,
  left,
  right,
  omittedNote
};
