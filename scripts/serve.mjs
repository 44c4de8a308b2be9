#!/usr/bin/env node
// Runs the results server (server/main.ts) from its bundle (scripts/bundle.mjs). npm packages
// stay outside the bundle: better-sqlite3 is a native addon that must be loaded from
// node_modules, and the others gain nothing from bundling.
import { importBundled, root } from './bundle.mjs';

const { main } = await importBundled({
  entry: 'server/main.ts',
  outfile: 'dist-server/serve.mjs',
  sources: ['server', 'src/core', 'src/study'],
  options: { packages: 'external' },
});
process.exitCode = await main(process.argv.slice(2), root);
