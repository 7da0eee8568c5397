// Debian's headless Chromium for the HTML report test: the DOM as Chromium parsed it (--dump-dom), and
// measurements from the laid-out page at a phone's width over the DevTools protocol on a pipe (fd 3 / 4).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { Tool } from "../helpers/tools.js";

/** Chromium on the PATH (Debian's `chromium`, or `chromium-browser` as some distributions name it). */
export const CHROMIUM = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => dir !== "")
  .flatMap((dir) => [join(dir, "chromium"), join(dir, "chromium-browser")])
  .find((path) => existsSync(path));

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

function withProfile<T>(use: (profile: string) => Promise<T>): Promise<T> {
  const profile = mkdtempSync(join(tmpdir(), "topsync-chromium-"));
  // Chromium's helper processes may still be writing to the profile a moment after it exits; a temporary
  // folder that outlives the test is not the test's failure.
  return use(profile).finally(() => {
    try {
      rmSync(profile, { recursive: true, force: true });
    } catch {}
  });
}

/** Ends the browser and waits until it has exited, so its profile folder can go. */
function stopped(browser: ChildProcess): Promise<void> {
  if (browser.exitCode !== null || browser.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    browser.once("exit", () => resolve());
    browser.kill();
  });
}

/** Debian's Chromium, for `needs` (test/helpers/tools.ts): it must be installed and show a page. */
export const CHROMIUM_TOOL: Tool = {
  name: "chromium",
  install: "apt-get install chromium; .ci/run installs it",
  problem: chromiumProblem,
};

/** Why Chromium cannot run here, or undefined when it can. */
async function chromiumProblem(): Promise<string | undefined> {
  if (!CHROMIUM) return "no chromium or chromium-browser on the PATH";
  try {
    const dom = await dumpDom("data:text/html,<p>ok</p>");
    return dom.includes("<p>ok</p>") ? undefined : `chromium answered ${JSON.stringify(dom.slice(0, 200))}`;
  } catch (error) {
    return `chromium does not run: ${(error as Error).message}`;
  }
}

/** The page's DOM after Chromium parsed it; a file path or a URL. */
export function dumpDom(target: string): Promise<string> {
  const url = target.startsWith("/") ? pathToFileURL(target).href : target;
  return withProfile(
    (profile) =>
      new Promise((resolve, reject) => {
        execFile(
          CHROMIUM!,
          [...FLAGS, `--user-data-dir=${profile}`, "--dump-dom", url],
          { timeout: 30_000, maxBuffer: 32 * 1024 * 1024 },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        );
      }),
  );
}

/**
 * Opens a file at a phone's viewport (390×844, like an iPhone 12–15) and returns the value of `expression`
 * evaluated in the laid-out page.
 */
export function measureOnPhone<T>(file: string, expression: string, screenshot?: string): Promise<T> {
  return measureAt<T>(file, expression, PHONE, screenshot);
}

export interface Viewport {
  width: number;
  height: number;
  mobile: boolean;
  deviceScaleFactor: number;
}

export const PHONE: Viewport = { width: 390, height: 844, mobile: true, deviceScaleFactor: 3 };
export const DESKTOP: Viewport = { width: 1280, height: 800, mobile: false, deviceScaleFactor: 1 };

/**
 * Opens a file at a viewport and returns the value of `expression` evaluated in the laid-out page; with
 * `screenshot`, also writes a PNG of the whole page there.
 */
export function measureAt<T>(
  file: string,
  expression: string,
  viewport: Viewport,
  screenshot?: string,
): Promise<T> {
  return withProfile(async (profile) => {
    const browser = spawn(
      CHROMIUM!,
      [...FLAGS, `--user-data-dir=${profile}`, "--remote-debugging-pipe", "about:blank"],
      {
        stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
      },
    );
    const devtools = new DevTools(browser);
    const timer = setTimeout(() => devtools.fail(new Error("chromium did not answer within 30s")), 30_000);
    try {
      const { targetId } = await devtools.send<{ targetId: string }>("Target.createTarget", {
        url: "about:blank",
      });
      const { sessionId } = await devtools.send<{ sessionId: string }>("Target.attachToTarget", {
        targetId,
        flatten: true,
      });
      const page = (method: string, params: object = {}) => devtools.send(method, params, sessionId);
      await page("Emulation.setDeviceMetricsOverride", viewport);
      await page("Page.enable");
      const loaded = devtools.event("Page.loadEventFired", sessionId);
      await page("Page.navigate", { url: pathToFileURL(file).href });
      await loaded;
      const result = (await page("Runtime.evaluate", { expression, returnByValue: true })) as {
        result: { value: T };
        exceptionDetails?: { text: string };
      };
      if (result.exceptionDetails) throw new Error(`evaluation failed: ${result.exceptionDetails.text}`);
      if (screenshot) {
        const shot = (await page("Page.captureScreenshot", {
          format: "png",
          captureBeyondViewport: true,
        })) as { data: string };
        writeFileSync(screenshot, Buffer.from(shot.data, "base64"));
      }
      await devtools.send("Browser.close").catch(() => {});
      return result.result.value;
    } finally {
      clearTimeout(timer);
      await stopped(browser);
    }
  });
}

/** The DevTools protocol over --remote-debugging-pipe: JSON messages ending in a NUL byte. */
class DevTools {
  private next = 1;
  private buffer = "";
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly waiters: Array<{
    method: string;
    sessionId?: string;
    resolve: () => void;
    reject: (e: Error) => void;
  }> = [];
  private failure?: Error;
  private readonly input: Writable;

  constructor(process: ChildProcess) {
    this.input = process.stdio[3] as Writable;
    (process.stdio[4] as Readable).on("data", (chunk: Buffer) => this.receive(chunk.toString("utf8")));
    process.on("exit", (code) => this.fail(new Error(`chromium exited (${code})`)));
    process.on("error", (error) => this.fail(error));
  }

  send<T = unknown>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    this.input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    return new Promise((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
  }

  event(method: string, sessionId?: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ method, sessionId, resolve, reject }));
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
    for (const { reject } of this.waiters.splice(0)) reject(error);
  }

  private receive(text: string): void {
    this.buffer += text;
    for (let end = this.buffer.indexOf("\0"); end >= 0; end = this.buffer.indexOf("\0")) {
      const message = JSON.parse(this.buffer.slice(0, end)) as {
        id?: number;
        method?: string;
        sessionId?: string;
        result?: unknown;
        error?: { message: string };
      };
      this.buffer = this.buffer.slice(end + 1);
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiting?.reject(new Error(message.error.message));
        else waiting?.resolve(message.result);
        continue;
      }
      const index = this.waiters.findIndex(
        (w) => w.method === message.method && w.sessionId === message.sessionId,
      );
      if (index >= 0) this.waiters.splice(index, 1)[0]!.resolve();
    }
  }
}
