import path from 'node:path';
import { defineConfig } from 'vite';

/**
 * `npm run build:jspsych`: plugin-clutrr for researchers' own jsPsych experiments (issue 25),
 * in library mode, jsPsych left out (a peer: the page loads its own).
 * - default mode → `dist-jspsych/plugin-clutrr.js`, an ES module (default export: the plugin
 *   class; named: `clutrrTimeline`, `studyFromLink`);
 * - `--mode iife` → `dist-jspsych/plugin-clutrr.iife.js`, a script defining `window.jsPsychClutrr`
 *   (jsPsych from the global `jsPsychModule` that jsPsych's `index.browser.js` defines).
 */
export default defineConfig(({ mode }) => {
  const iife = mode === 'iife';
  return {
    publicDir: false,
    build: {
      target: 'es2020',
      outDir: 'dist-jspsych',
      // The ES build runs first and empties the folder; the IIFE build adds its file.
      emptyOutDir: !iife,
      sourcemap: true,
      lib: {
        entry: path.resolve(import.meta.dirname, iife ? 'src/jspsych/browser.ts' : 'src/jspsych/index.ts'),
        name: 'jsPsychClutrr',
        formats: [iife ? 'iife' : 'es'],
        fileName: () => (iife ? 'plugin-clutrr.iife.js' : 'plugin-clutrr.js'),
      },
      rollupOptions: {
        external: ['jspsych'],
        output: { globals: { jspsych: 'jsPsychModule' }, ...(iife ? { exports: 'default' as const } : {}) },
      },
    },
  };
});
