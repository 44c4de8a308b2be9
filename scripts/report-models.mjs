#!/usr/bin/env node
// `npm run report:models` (scripts/train/report.ts) from its bundle (scripts/bundle.mjs), as
// scripts/train.mjs runs the training: tfjs stays external so that the wasm backend finds its
// .wasm files in node_modules.
import { importBundled } from './bundle.mjs';

const { main } = await importBundled({
  entry: 'scripts/train/report.ts',
  outfile: 'dist-cli/report-models.mjs',
  sources: ['scripts', 'src/core', 'src/ml'],
  options: { external: ['@tensorflow/*'] },
});
process.exitCode = await main(process.argv.slice(2));
