// The root certificates a service's HTTPS is checked against besides Node.js's own: a service's `ca_file`, a PEM
// file of one or more certificates (a private authority, or the one a TLS-inspecting proxy signs with). Read when
// the service's first call goes, and by `topsync config check`. Node.js 20 reads NODE_EXTRA_CA_CERTS at every
// start of every command, before any code runs (tens of milliseconds: README, "Start-up"); a `ca_file` costs only
// the commands that call its service.
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { SecureContext } from "node:tls";
import { fileProblem } from "../file-problem.js";

/** Far more than any bundle of roots (a system's whole bundle is some 200 KB); a larger file is not read. */
export const MAX_CA_FILE_BYTES = 4 * 1024 * 1024;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]*?-----END CERTIFICATE-----/g;

export type CaFile = { ok: true; certificates: string[] } | { ok: false; problem: string };

/** The file's certificates, each checked to be one; or what is wrong with the file, said after its name. */
export async function readCaFile(file: string): Promise<CaFile> {
  const unusable = await fileProblem(file, (bytes) =>
    bytes > MAX_CA_FILE_BYTES
      ? `is ${bytes} bytes, more than a file of certificates holds (${MAX_CA_FILE_BYTES} at most)`
      : undefined,
  );
  if (unusable !== undefined) return problem(unusable);
  let text: string;
  try {
    text = await readFile(file, "latin1");
  } catch (error) {
    // Changed since it was checked.
    return problem(`cannot be read: ${(error as Error).message}`);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0)
    return problem(
      "holds no PEM certificate (a block from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----)",
    );
  for (const [index, pem] of blocks.entries()) {
    try {
      new X509Certificate(pem);
    } catch (error) {
      return problem(
        `certificate ${index + 1} of ${blocks.length} is not a certificate: ${(error as Error).message}`,
      );
    }
  }
  return { ok: true, certificates: blocks };
}

/**
 * What the service's connections trust: Node.js's bundled roots, the certificates of NODE_EXTRA_CA_CERTS when it
 * is set and readable (as every other connection of the process trusts them), and the service's own — one TLS
 * context for all its connections. (Roots given to each connection instead would replace Node.js's, hence all
 * three, and be parsed again at every connection: some 20 ms each.)
 */
export async function trustedContext(own: readonly string[]): Promise<SecureContext> {
  // node:tls on use, by require (the bundle holds no import() of a built-in): only a service with a ca_file loads it.
  const tls = createRequire(import.meta.url)("node:tls") as typeof import("node:tls");
  const extraFile = process.env.NODE_EXTRA_CA_CERTS;
  const extra = extraFile ? await readCaFile(extraFile) : undefined;
  return tls.createSecureContext({
    ca: [...tls.rootCertificates, ...(extra?.ok ? extra.certificates : []), ...own],
  });
}

function problem(text: string): CaFile {
  return { ok: false, problem: text };
}
