import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  REPORT_FORMATS,
  isReportFormat
} from "./chunk-BZFDKSYR.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-R6NDLW6F.js";
import {
  parseDuration
} from "./chunk-4DGXMM26.js";
import {
  TopsyncError,
  UsageError
} from "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";

// dist/cli/report-output.js
import { randomBytes } from "node:crypto";
import { accessSync, constants, lstatSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
var MAX_WINDOW_MS = 92 * 864e5;
var processReportIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text)
};
function parseWindow(text) {
  let ms;
  try {
    ms = parseDuration(text);
  } catch {
    throw new UsageError(`--window must be a duration like 24h, 7d or 1h30m; got "${text}"`, "BAD_WINDOW");
  }
  if (ms <= 0 || ms > MAX_WINDOW_MS) {
    throw new UsageError(`--window must be more than 0 and at most 92d; got "${text}"`, "BAD_WINDOW");
  }
  return ms;
}
function parseFormat(text, json) {
  const format = text ?? (json ? "json" : "text");
  if (isReportFormat(format))
    return format;
  throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(", ")}; got "${format}"`, "BAD_FORMAT");
}
var STDOUT = "-";
function checkOut(out) {
  if (out === STDOUT)
    return out;
  const path = resolve(out);
  const dir = dirname(path);
  const target = lstatOrUndefined(out, path);
  if (target?.isSymbolicLink())
    throw badOut(out, "it is a symbolic link; give the file it points to, or another name");
  if (target?.isDirectory())
    throw badOut(out, "it is a directory; give a file name");
  if (target && !target.isFile())
    throw badOut(out, "it is not a regular file (a device, FIFO or socket); only regular files are replaced");
  const parent = lstatOrUndefined(out, dir, true);
  if (!parent)
    throw badOut(out, `the directory ${dir} does not exist`);
  if (!parent.isDirectory())
    throw badOut(out, `${dir} is not a directory`);
  if (!writable(dir))
    throw badOut(out, `the directory ${dir} is not writable`);
  if (target && !writable(path))
    throw badOut(out, "the file is not writable");
  return path;
}
function deliver(io, text, out, what) {
  if (!out || out === STDOUT) {
    io.out(text);
    return;
  }
  const path = checkOut(out);
  const aside = join(dirname(path), `.topsync-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(aside, text, { flag: "wx" });
    renameSync(aside, path);
  } catch (error) {
    rmSync(aside, { force: true });
    throw new TopsyncError("OUT_NOT_WRITTEN", `could not write ${what} to ${out}, so nothing was written: ${error.message}`);
  }
  io.err(`${what} written to ${out}
`);
}
function lstatOrUndefined(out, path, follow = false) {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT")
      return void 0;
    if (code === "ENAMETOOLONG")
      throw badOut(out, "the name is too long for the file system");
    if (code === "ENOTDIR")
      throw badOut(out, `${dirname(path)} is not a directory`);
    throw badOut(out, error.message);
  }
}
function writable(path) {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
function badOut(out, why) {
  return new UsageError(`--out ${out} cannot be written: ${why}`, "BAD_OUT");
}
export {
  MAX_WINDOW_MS,
  STDOUT,
  checkOut,
  deliver,
  parseFormat,
  parseWindow,
  processReportIo
};
