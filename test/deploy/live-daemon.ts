// One `topsync run` for a test file that checks deployment files against what the daemon really serves: on the
// sandbox and a fresh PostgreSQL ledger, ready before the tests, stopped after them.
import { afterAll, beforeAll } from "vitest";
import {
  type DaemonProcess,
  daemonConfig,
  freePort,
  spawnDaemon,
  stopDaemon,
  useLedger,
  waitReady,
} from "../daemon/helpers.js";

/** The running daemon (read it inside a test); `extra` adds to its config; `when` false starts none. */
export function useLiveDaemon(extra: Record<string, unknown> = {}, when = true): () => DaemonProcess {
  const fixture = useLedger({});
  let daemon: DaemonProcess | undefined;
  beforeAll(async () => {
    if (!when) return;
    const port = await freePort();
    daemon = spawnDaemon(daemonConfig(fixture.sandbox, fixture.url, port, extra), port);
    await waitReady(daemon);
  }, 90_000);
  afterAll(async () => {
    if (daemon) await stopDaemon(daemon);
  });
  return () => {
    if (!daemon) throw new Error("no daemon was started");
    return daemon;
  };
}
