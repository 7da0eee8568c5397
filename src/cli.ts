#!/usr/bin/env node
// `node dist/cli.js`: the command line for whoever starts it as an ES module. It runs the CommonJS launcher,
// dist/cli.cjs (src/cli.cts), which the `topsync` bin and the Docker image start directly: an ES module as the entry
// point costs Node.js its ES module loader first.
import "./cli.cjs";
