import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Relative asset paths: the same build runs at a site's root, under a sub-folder, and inside a
  // JATOS study archive (served from /publix/…).
  base: './',
  plugins: [react()],
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
      'eslint.config.test.ts',
    ],
    environment: 'node',
    testTimeout: 60_000,
  },
});
      'server/**/*.test.ts',
