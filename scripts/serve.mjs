#!/usr/bin/env node
// Runs the results server (server/main.ts): bundles it with esbuild, as scripts/cli.mjs does the
// CLI (skipped when the bundle is newer than every source), then runs the bundle in this
// process. npm packages stay outside the bundle: better-sqlite3 is a native addon that must be
// loaded from node_modules, and the others gain nothing from bundling.
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist-server', 'serve.mjs');
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
  return Math.max(t, statSync(fileURLToPath(import.meta.url)).mtimeMs);
};
const fresh = existsSync(outfile) && statSync(outfile).mtimeMs > newest(['server', 'src/core', 'src/study']);
if (!fresh) {
  // Written aside and renamed into place: tests start several servers at once.
  const result = await build({
    write: false,
    entryPoints: [path.join(root, 'server', 'main.ts')],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  mkdirSync(path.dirname(outfile), { recursive: true });
  const aside = `${outfile}.${process.pid}.tmp`;
  writeFileSync(aside, result.outputFiles[0].contents);
  renameSync(aside, outfile);
}

// Paths on the command line are the user's: npm runs scripts from the project root, but says
// where it was started in INIT_CWD.
if (process.env.INIT_CWD && existsSync(process.env.INIT_CWD)) process.chdir(process.env.INIT_CWD);
const { main } = await import(pathToFileURL(outfile).href);
process.exitCode = await main(process.argv.slice(2), root);
