import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/cli/output.js
function write(text) {
  process.stdout.write(text);
}

export {
  write
};
