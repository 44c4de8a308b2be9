#!/usr/bin/env node
// `npm run train` (scripts/train/main.ts) from its bundle (scripts/bundle.mjs). tfjs stays
// external so that the wasm backend finds its .wasm files in node_modules.
import { importBundled } from './bundle.mjs';

const { main } = await importBundled({
  entry: 'scripts/train/main.ts',
  outfile: 'dist-cli/train.mjs',
  sources: ['scripts', 'src/core', 'src/ml'],
  options: { external: ['@tensorflow/*'] },
});
process.exitCode = await main(process.argv.slice(2));
