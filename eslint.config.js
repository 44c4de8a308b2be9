import js from '@eslint/js';
import globals from 'globals';
import path from 'node:path';
import tseslint from 'typescript-eslint';

/**
 * Import boundaries (conventions.md): core imports nothing outside itself and no package;
 * worker, ml, graph/layout and cli may import core but not UI code.
 */
const LAYERS = [
  { dir: 'src/core', may: ['src/core'], packages: false },
  { dir: 'src/worker', may: ['src/core', 'src/worker'], packages: true },
  { dir: 'src/ml', may: ['src/core', 'src/ml'], packages: true },
  { dir: 'src/graph/layout', may: ['src/core', 'src/graph/layout'], packages: true },
  { dir: 'cli', may: ['src/core', 'cli'], packages: true },
];

const boundaries = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = path.relative(process.cwd(), context.filename).split(path.sep).join('/');
    const layer = LAYERS.find((l) => file === l.dir || file.startsWith(l.dir + '/'));
    // Tests run under vitest in Node: they may import the test tools and node: modules.
    if (!layer || /\.test\.tsx?$/.test(file)) return {};
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      if (!source.startsWith('.')) {
        if (!layer.packages && !source.startsWith('node:')) {
          context.report({ node, message: `${layer.dir} must not import packages ("${source}")` });
        }
        if (!layer.packages && source.startsWith('node:')) {
          context.report({ node, message: `${layer.dir} must run in the browser: no "${source}"` });
        }
        return;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), source));
      if (!layer.may.some((d) => target === d || target.startsWith(d + '/'))) {
        context.report({ node, message: `${layer.dir} may import only ${layer.may.join(', ')} (not "${source}")` });
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist', 'dist-cli', 'node_modules', 'test-results', 'playwright-report', 'e2e/artifacts', 'public'] },
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
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
