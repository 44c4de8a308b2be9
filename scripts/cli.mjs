#!/usr/bin/env node
// Runs the command line: bundles cli/main.ts with esbuild (about a tenth of a second), then
// runs the bundle in this process. A bundle, not a per-file transpiler, so that the generator's
// hot loops run at full speed (per-file module shims slow them several times over).
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist-cli', 'clutrr.mjs');
await build({
  entryPoints: [path.join(root, 'cli', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
// A closed pipe (`npm run cli -- check x.csv | head`) ends the output, not the process with a trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
const { main } = await import(pathToFileURL(outfile).href);
process.exitCode = await main(process.argv.slice(2));
