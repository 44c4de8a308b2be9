import { readdirSync, writeFileSync } from 'node:fs';
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
  },
});
