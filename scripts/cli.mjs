#!/usr/bin/env node
// Runs the command line: bundles cli/main.ts with esbuild (about a tenth of a second, skipped
// when the bundle is newer than every source it is made of), then runs the bundle in this
// process. A bundle, not a per-file transpiler, so that the generator's
// hot loops run at full speed (per-file module shims slow them several times over).
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist-cli', 'clutrr.mjs');
/** Newest modification time of the files under these folders. */
const newest = (dirs) => {
  let t = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else t = Math.max(t, statSync(p).mtimeMs);
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return t;
};
const fresh =
  existsSync(outfile) && statSync(outfile).mtimeMs > newest(['cli', 'src/core', 'src/study', 'server', 'scripts']);
if (!fresh) {
  // Written aside and renamed into place: several CLI processes may start at once (tests do).
  const result = await build({
    write: false,
    entryPoints: [path.join(root, 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // A native addon: loaded from node_modules at run time (results export, study register).
    external: ['better-sqlite3'],
    sourcemap: 'inline',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  mkdirSync(path.dirname(outfile), { recursive: true });
  const aside = `${outfile}.${process.pid}.tmp`;
  writeFileSync(aside, result.outputFiles[0].contents);
  renameSync(aside, outfile);
}

// A closed pipe (`npm run cli -- check x.csv | head`) ends the output, not the process with a trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
// Paths on the command line are the user's: npm runs scripts from the project root, but says
// where it was started in INIT_CWD.
if (process.env.INIT_CWD && existsSync(process.env.INIT_CWD)) process.chdir(process.env.INIT_CWD);
const { main } = await import(pathToFileURL(outfile).href);
process.exitCode = await main(process.argv.slice(2));
