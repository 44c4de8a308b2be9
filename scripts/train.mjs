#!/usr/bin/env node
// `npm run train`: bundles scripts/train/main.ts with esbuild (the generator's hot loops run at
// full speed in a bundle; see cli.mjs) and runs it. tfjs stays external so that the wasm
// backend finds its .wasm files in node_modules.
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist-cli', 'train.mjs');
const result = await build({
  write: false,
  entryPoints: [path.join(root, 'scripts', 'train', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['@tensorflow/*'],
  sourcemap: 'inline',
  logLevel: 'warning',
});
mkdirSync(path.dirname(outfile), { recursive: true });
const aside = `${outfile}.${process.pid}.tmp`;
writeFileSync(aside, result.outputFiles[0].contents);
renameSync(aside, outfile);

if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
const { main } = await import(pathToFileURL(outfile).href);
process.exitCode = await main(process.argv.slice(2));
