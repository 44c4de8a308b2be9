import { readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Writes `study-files.json` into the build: every file the app is served from (source maps
 * left out), which the study designer fetches to pack the app into a JATOS study archive.
 */
function studyFilesList(): Plugin {
  let outDir = 'dist';
  return {
    name: 'clutrr-study-files',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const entry of readdirSync(path.join(outDir, dir), { withFileTypes: true })) {
          const rel = dir ? `${dir}/${entry.name}` : entry.name;
          if (entry.isDirectory()) walk(rel);
          else if (!rel.endsWith('.map') && rel !== 'study-files.json') files.push(rel);
        }
      };
      walk('');
      writeFileSync(path.join(outDir, 'study-files.json'), `${JSON.stringify(files.sort(), null, 1)}\n`);
    },
  };
}

export default defineConfig({
  // Relative asset paths: the same build runs at a site's root, under a sub-folder, and inside a
  // JATOS study archive (served from /publix/…).
  base: './',
  plugins: [react(), studyFilesList()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 1500 },
  preview: { port: 4173, strictPort: true },
  server: { port: 5173 },
  test: {
    include: [
      'src/**/*.test.ts',
      'src/**/*.test.tsx',
      'cli/**/*.test.ts',
      'scripts/**/*.test.ts',
      'server/**/*.test.ts',
      'eslint.config.test.ts',
    ],
    environment: 'node',
    testTimeout: 60_000,
    // Two test files at a time even on 2 cores: vitest's own default there is one (cores less one),
    // and the unit tests then took the sum of the files' times (24 of CI's 40 minutes). Most of
    // that is a few long single-threaded files (the shipped models' accuracies), which now run
    // beside the rest: 13.3 minutes for the same tests on this 2-core machine. Timed tests bound
    // their own time generously (the server's load and fault tests: 60–900 s).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
