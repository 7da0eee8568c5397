// Where topsync's own files are (package.json, drizzle/): the nearest folder above a module that holds
// topsync's package.json. Found by looking, not by counting "../", because the same code runs from
// dist/<folder>/ as tsc writes it and from dist/topsync.cjs as the bundle has it.
import { existsSync, readFileSync } from "node:fs";

const found = new Map<string, URL>();

/** The package's root folder, as a URL ending in "/", for a module's `import.meta.url`. */
export function packageRoot(moduleUrl: string): URL {
  const known = found.get(moduleUrl);
  if (known) return known;
  for (let folder = new URL("./", moduleUrl); ; ) {
    const manifest = new URL("package.json", folder);
    if (existsSync(manifest) && isTopsync(manifest)) {
      found.set(moduleUrl, folder);
      return folder;
    }
    const parent = new URL("../", folder);
    if (parent.href === folder.href) throw new Error(`topsync's package.json is not above ${moduleUrl}`);
    folder = parent;
  }
}

function isTopsync(manifest: URL): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "topsync";
  } catch {
    return false;
  }
}
