#!/usr/bin/env node
// Runs the command line (cli/main.ts) from its bundle (scripts/bundle.mjs).
import { importBundled } from './bundle.mjs';

const { main } = await importBundled({
  entry: 'cli/main.ts',
  outfile: 'dist-cli/clutrr.mjs',
  sources: ['cli', 'src/core', 'src/study', 'src/ml', 'src/llm', 'server'],
  // The row makers' module as an entry of its own: it and the engine land in a chunk, and that
  // chunk is all a worker thread of `generate` loads (cli/rowWorkers.ts starts threads on the
  // file it is in), not the whole command line.
  entries: { 'row-maker': 'cli/rowWorkers.ts' },
  options: {
    // A native addon: loaded from node_modules at run time (results export, study register).
    // tfjs (eval): its wasm backend reads its .wasm files next to its package in node_modules.
    // Split: tfjs loads only when `eval` runs (cli/main.ts imports that command on demand).
    external: ['better-sqlite3', '@tensorflow/*'],
    splitting: true,
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  },
});

// A closed pipe (`npm run cli -- check x.csv | head`) ends the output, not the process with a trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
process.exitCode = await main(process.argv.slice(2));
