import js from '@eslint/js';
import globals from 'globals';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import tseslint from 'typescript-eslint';

/**
 * Import boundaries: one row per layer (README "Layout" and each src/<folder>/README.md).
 *
 * - `dir`: the folder (or file) the layer holds; the longest matching `dir` claims a file, and
 *   `src/features/*` is one layer per feature (`*` is one folder name). `.` is the files at the
 *   root of the repository. A file that no layer claims is an error.
 * - `may`: what the layer may import besides itself (folders or files, without extension).
 *   A feature's "itself" is its own folder only, so features never import each other.
 * - `packages`: npm packages allowed: true (any), false (none) or a list (`d3-*` ends in a
 *   wildcard). Node built-ins count as packages only where `node` is true.
 * - `pure`: no browser-only or Node-only globals (no DOM, no `process`): the code runs unchanged
 *   in Node, in a Web Worker and on the page.
 * - `testMay`: what the layer's tests (`*.test.ts`, `*.spec.ts`) may import besides `may`. Tests
 *   may also import any package and Node built-in (vitest, fast-check, node:fs…).
 */
export const LAYERS = [
  { dir: 'src/core', may: [], packages: false, node: false, pure: true },
  { dir: 'src/graph/layout', may: ['src/core'], packages: ['d3', 'd3-*'], node: false, pure: true },
  {
    dir: 'src/worker',
    // src/ml: the models worker (the only place tfjs runs in the app). Its test checks that the
    // worker's test puzzles are the training script's. src/study (pure, itself only on core):
    // the results worker reads and merges result files with src/study/resultsFile.
    may: ['src/core', 'src/ml', 'src/study'],
    packages: true,
    node: false,
    testMay: ['scripts/train/data'],
  },
  {
    dir: 'src/state',
    may: ['src/core', 'src/worker'],
    packages: true,
    node: false,
  },
  // plugin-clutrr for researchers' jsPsych experiments (issue 25): makes puzzles as a study does
  // (src/study's schedule and trial content, the generator worker's handler run on the page),
  // draws the stated facts with the study's layout (src/graph/layout); jsPsych is its only package.
  {
    dir: 'src/jspsych',
    may: ['src/core', 'src/study', 'src/worker', 'src/graph/layout'],
    packages: ['jspsych'],
    node: false,
  },
  { dir: 'src/ui', may: ['src/core', 'src/worker'], packages: true, node: false },
  { dir: 'src/graph', may: ['src/core'], packages: true, node: false },
  // The model report and the dashboard's model columns build model questions on the page and
  // describe each model (encoding.ts, model.ts and modelKinds.ts are pure; tfjs itself stays in
  // the models worker). Listed before src/features/*, which claims the same folders: of two
  // equal claims the first wins.
  ...['src/features/models', 'src/features/results'].map((dir) => ({
    dir,
    may: [
      'src/core',
      'src/worker',
      'src/state',
      'src/graph',
      'src/ui',
      'src/study',
      'src/ml/encoding',
      'src/ml/model',
      'src/ml/modelKinds',
      // The models view's language-model curve asks the language model the shipped models'
      // test puzzles (testData.ts is pure core code, no tfjs).
      'src/ml/testData',
      'src/llm',
    ],
    packages: true,
    node: false,
  })),
  {
    dir: 'src/features/*',
    may: ['src/core', 'src/worker', 'src/state', 'src/graph', 'src/ui', 'src/study', 'src/llm'],
    packages: true,
    node: false,
  },
  {
    dir: 'src/study',
    may: ['src/core'],
    packages: true,
    node: false,
    // The simulated study results (e2e/fixtures/resultsFixture.ts) are golden files' source.
    testMay: ['e2e/fixtures/resultsFixture'],
  },
  // Asking a language model (issue 35, src/llm/README.md): prompts, answer extraction and an
  // OpenAI-compatible client with `fetch` injected, pure; its `session/` is the page's side
  // (the endpoint typed, kept in memory or, if the user asks, localStorage; the page's fetch).
  { dir: 'src/llm', may: ['src/core'], packages: false, node: false, pure: true },
  // EndpointForm.tsx: the one form the explorer, the dashboard and the models view show.
  { dir: 'src/llm/session', may: ['src/core', 'src/llm'], packages: ['zustand', 'react'], node: false },
  // The models: tfjs only, runs the same in Node (training, eval), a worker and the page.
  { dir: 'src/ml', may: ['src/core'], packages: ['@tensorflow/*'], node: false, pure: true },
  { dir: 'src/app', may: ['src'], packages: true, node: false },
  { dir: 'src/main.tsx', may: ['src/app', 'src/state', 'src/study'], packages: true, node: false },
  {
    dir: 'cli',
    // server: `results export` and `study register` open the results database through its store;
    // `results export` streams through the server's export and writes private files as it does.
    may: [
      'src/core',
      'src/study',
      'src/ml',
      // `eval --llm` (issue 35): prompts, extraction and the chat-completions client.
      'src/llm',
      'server/store',
      'server/schema',
      'server/export',
      'server/files',
      'server/sessions',
      // `results export --format psych-ds` writes the psych-DS folder (issue 25).
      'server/psychDs',
    ],
    packages: true,
    node: true,
    // The CLI's messages are compared with the dataset builder form's; the results commands'
    // tests use the server's sample rows.
    testMay: ['src/features/dataset/form', 'server/testServer'],
  },
  // The results server; the CLI's `results export` and `study register` open its database.
  { dir: 'server', may: ['src/core', 'src/study'], packages: true, node: true },
  // server/spawnServer: the results server's tests and the browser's fault test start the real
  // server the same way (node built-ins only, nothing of the server's code).
  { dir: 'e2e', may: ['src/core', 'src/study', 'server/spawnServer'], packages: true, node: true },
  { dir: 'scripts', may: [], packages: true, node: true },
  // The models' training job (issues 11, 22; scripts/train/README.md): generates data with core,
  // trains src/ml's models in Node, writes public/models/. tfjs is its only package; the app
  // (features, worker, state) and the CLI are not its business.
  { dir: 'scripts/train', may: ['src/core', 'src/ml'], packages: ['@tensorflow/*'], node: true },
  { dir: '.', may: [], packages: true, node: true },
];

/**
 * Imports that break a row above and are waiting for a change already under way; each names the
 * importing file and what it imports. `eslint.config.test.ts` fails once one is no longer needed.
 */
export const EXCEPTIONS = [];

/** React hook rules switched off for one file, waiting for the same kind of change. */
export const HOOK_EXCEPTIONS = [];

const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const stripExt = (p) => p.replace(/\?.*$/, '').replace(/\.[cm]?[jt]sx?$/, '');
const within = (p, dir) => (dir === '.' ? !p.includes('/') : p === dir || p.startsWith(dir + '/'));

/** The layer that claims a file (repository-relative, `/`-separated), and the folder it stands for. */
export function layerOf(file) {
  let best;
  for (const layer of LAYERS) {
    const pattern = layer.dir
      .split('/')
      .map((p, i) => (p === '*' ? file.split('/')[i] : p))
      .join('/');
    if (!within(file, pattern)) continue;
    if (!best || pattern.length > best.own.length) best = { layer, own: pattern };
  }
  return best;
}

const packageAllowed = (allowed, name) =>
  allowed === true ||
  (Array.isArray(allowed) &&
    allowed.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p || name.startsWith(p + '/'))));

const boundaries = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = path.relative(context.cwd, context.filename).split(path.sep).join('/');
    if (file.startsWith('..')) return {};
    const claim = layerOf(file);
    if (!claim) {
      return {
        Program: (node) =>
          context.report({ node, message: `no layer claims "${file}": add it to LAYERS in eslint.config.js` }),
      };
    }
    const { layer, own } = claim;
    const test = TEST_FILE.test(file);
    const may = [own, ...layer.may, ...(test ? (layer.testMay ?? []) : [])];
    const name = layer.dir;
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      if (!source.startsWith('.') && !source.startsWith('/')) {
        if (test) return;
        if (isBuiltin(source)) {
          if (!layer.node) context.report({ node, message: `${name} runs in the browser: no "${source}"` });
        } else if (!packageAllowed(layer.packages, source)) {
          context.report({ node, message: `${name} must not import the package "${source}"` });
        }
        return;
      }
      const target = stripExt(path.posix.normalize(path.posix.join(path.posix.dirname(file), source)));
      if (may.some((d) => within(target, stripExt(d)))) return;
      if (EXCEPTIONS.some((e) => e.file === file && within(target, e.target))) return;
      const what = layer.may.length ? `itself, ${layer.may.join(', ')}` : 'itself';
      context.report({ node, message: `${name} may import only ${what} (not "${source}")` });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

// Globals that exist in only one of the browser and Node (the DOM, `process`, `Buffer`…), and
// the browser's storage and network: none of them in a layer that must stay pure.
const shared = new Set(Object.keys(globals.browser).filter((g) => g in globals.node));
const impureGlobals = [...new Set([...Object.keys(globals.browser), ...Object.keys(globals.node)])]
  .filter((g) => !shared.has(g) && !(g in globals.es2025))
  .concat(['fetch', 'localStorage', 'sessionStorage', 'navigator', 'WebSocket'])
  .map((name) => ({ name, message: 'this layer is pure: no browser or Node globals' }));
const pureDirs = LAYERS.filter((l) => l.pure).map((l) => `${l.dir}/**`);
// A layer inside a pure one that is not pure itself (src/llm/session): its own row decides.
const impureInPure = LAYERS.filter((l) => !l.pure && LAYERS.some((p) => p.pure && l.dir.startsWith(`${p.dir}/`))).map(
  (l) => `${l.dir}/**`,
);

export default tseslint.config(
  {
    ignores: [
      'dist',
      'dist-cli',
      'dist-*',
      'test-results-*',
      'dist-server',
      'node_modules',
      'test-results',
      'playwright-report',
      'e2e/artifacts',
      'public',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { local: { rules: { boundaries } } },
    rules: {
      'local/boundaries': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'use an Rng (src/core/random)' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'no barrel: import from the defining module, or re-export names one by one',
        },
      ],
    },
  },
  {
    // Import cycles among the project's own modules (type-only imports do not count).
    files: ['src/**/*.{ts,tsx}', 'cli/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['src/**/*.tsx'],
    ...reactHooks.configs.flat.recommended,
  },
  ...HOOK_EXCEPTIONS.map(({ file, rule }) => ({ files: [file], rules: { [rule]: 'off' } })),
  {
    files: pureDirs,
    ignores: ['**/*.test.ts', ...impureInPure],
    rules: { 'no-restricted-globals': ['error', ...impureGlobals] },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
