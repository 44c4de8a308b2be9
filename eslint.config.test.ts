// The lint rules that keep the architecture's boundaries (eslint.config.js), run through ESLint's
// Node API on small snippets: each rule must fire on a forbidden import and stay quiet on an
// allowed one, so that a broken rule fails here instead of silently passing `npm run lint`.
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.dirname(fileURLToPath(import.meta.url));

interface ConfigTables {
  EXCEPTIONS: { file: string; target: string }[];
  HOOK_EXCEPTIONS: { file: string; rule: string }[];
}

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The rule ids (and boundary messages) ESLint reports for `code` as if it were `file`. */
async function lint(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => (m.ruleId === 'local/boundaries' ? `boundaries: ${m.message}` : String(m.ruleId)));
}
const boundaryErrors = async (file: string, code: string) =>
  (await lint(file, code)).filter((m) => m.startsWith('boundaries'));

/** [importing file, import source, allowed?] */
const IMPORTS: [string, string, boolean][] = [
  // core: itself only, no package, no Node built-in
  ['src/core/puzzle/x.ts', '../kinship/relations', true],
  ['src/core/puzzle/x.ts', '../../state/useStore', false],
  ['src/core/puzzle/x.ts', '../../worker/protocol', false],
  ['src/core/puzzle/x.ts', 'd3', false],
  ['src/core/puzzle/x.ts', 'node:fs', false],
  ['src/core/puzzle/x.test.ts', 'vitest', true],
  // graph/layout: core, itself and d3 only
  ['src/graph/layout/x.ts', '../../core/puzzle/puzzle', true],
  ['src/graph/layout/x.ts', './sizes', true],
  ['src/graph/layout/x.ts', 'd3', true],
  ['src/graph/layout/x.ts', 'd3-path', true],
  ['src/graph/layout/x.ts', 'react', false],
  ['src/graph/layout/x.ts', '../FamilyGraph', false],
  ['src/graph/layout/x.ts', '../../state/store', false],
  // worker: core and itself
  ['src/worker/x.ts', '../core/formats/csv', true],
  ['src/worker/x.ts', './protocol', true],
  ['src/worker/x.ts', 'fflate', true],
  ['src/worker/x.ts', '../state/store', false],
  ['src/worker/x.ts', '../ui/format', false],
  ['src/worker/x.ts', 'node:worker_threads', false],
  // state: core, worker, itself; never ui, features, graph or app
  ['src/state/x.ts', '../core/puzzle/puzzle', true],
  ['src/state/x.ts', '../worker/protocol', true],
  ['src/state/slices/x.ts', '../selectors', true],
  ['src/state/x.ts', 'zustand', true],
  ['src/state/x.ts', '../ui/format', false],
  ['src/state/x.ts', '../ui/puzzle/proof', false],
  ['src/state/x.ts', '../features/puzzle/PuzzleView', false],
  ['src/state/x.ts', '../graph/FamilyGraph', false],
  ['src/state/x.ts', '../app/App', false],
  // ui (and the puzzle kit): core, worker, itself; never features, app or the store
  ['src/ui/x.tsx', '../core/kinship/relations', true],
  ['src/ui/puzzle/x.tsx', '../format', true],
  ['src/ui/x.tsx', '../worker/protocol', true],
  ['src/ui/x.tsx', '../features/dataset/form', false],
  ['src/ui/puzzle/x.tsx', '../../features/classroom/keymap', false],
  ['src/ui/x.tsx', '../app/App', false],
  ['src/ui/puzzle/x.tsx', '../../state/useStore', false],
  // graph outside layout: core, itself (layout included)
  ['src/graph/x.tsx', './layout/layout', true],
  ['src/graph/x.tsx', '../core/puzzle/puzzle', true],
  ['src/graph/x.tsx', '../features/puzzle/GraphPanel', false],
  ['src/graph/x.tsx', '../app/App', false],
  ['src/graph/x.tsx', '../state/useStore', false],
  // features: core, worker, state, graph, ui and their own folder; never another feature
  ['src/features/puzzle/x.tsx', './StoryPanel', true],
  ['src/features/puzzle/x.tsx', '../../state/selectors', true],
  ['src/features/puzzle/x.tsx', '../../graph/FamilyGraph', true],
  ['src/features/puzzle/x.tsx', '../../graph/layout/familyClosure', true],
  ['src/features/puzzle/x.tsx', '../../ui/puzzle/AnswerGrid', true],
  ['src/features/dataset/x.ts', '../../worker/datasetClient', true],
  ['src/features/puzzle/x.tsx', '../classroom/keymap', false],
  ['src/features/audit/x.ts', '../dataset/summary', false],
  ['src/features/classroom/x.tsx', '../puzzle/PuzzleView', false],
  ['src/features/puzzle/x.tsx', '../../app/App', false],
  ['src/features/puzzle/x.tsx', 'node:fs', false],
  // app and the entry: anything in src
  ['src/app/x.tsx', '../features/audit/AuditView', true],
  ['src/app/x.tsx', '../state/store', true],
  ['src/main.tsx', './app/testHook', true],
  // cli: src/core, itself, Node and packages; its tests also compare messages with the form
  ['cli/commands/x.ts', '../../src/core/puzzle/dataset', true],
  ['cli/commands/x.ts', '../args', true],
  ['cli/x.ts', 'node:fs', true],
  ['cli/x.ts', 'fflate', true],
  ['cli/x.ts', '../src/state/store', false],
  ['cli/x.ts', '../src/worker/rpc', false],
  ['cli/x.ts', '../src/features/dataset/form', false],
  ['cli/x.test.ts', '../src/features/dataset/form', true],
  ['cli/x.test.ts', '../src/features/dataset/store', false],
  // e2e, scripts and the files at the root
  ['e2e/x.spec.ts', '../src/core/puzzle/puzzle', true],
  ['e2e/x.spec.ts', './fixtures/explorer', true],
  ['e2e/x.spec.ts', '../src/state/store', false],
  ['scripts/x.mjs', 'node:child_process', true],
  ['scripts/x.mjs', '../src/core/puzzle/puzzle', false],
  ['scripts/train/x.ts', '../../src/ml/gat', true],
  ['scripts/train/x.ts', '../../src/core/puzzle/puzzle', true],
  ['scripts/train/x.ts', '../../src/state/store', false],
  ['scripts/train/x.ts', '../../src/worker/modelsClient', false],
  ['scripts/train/x.ts', '../../cli/args', false],
  ['scripts/train/x.ts', '@tensorflow/tfjs', true],
  ['scripts/train/x.ts', '@tensorflow/tfjs-backend-wasm', true],
  ['scripts/train/x.ts', 'node:fs', true],
  ['scripts/train/x.ts', 'd3', false],
  // ml: core and tfjs only, pure
  ['src/ml/x.ts', '../core/puzzle/puzzle', true],
  ['src/ml/x.ts', '@tensorflow/tfjs', true],
  ['src/ml/x.ts', 'd3', false],
  ['src/ml/x.ts', 'node:fs', false],
  ['src/ml/x.ts', '../worker/rpc', false],
  ['cli/x.ts', '../src/ml/gat', true],
  ['x.config.ts', './src/core/puzzle/puzzle', false],
];

describe('import boundaries', () => {
  it.each(IMPORTS)('%s importing "%s": allowed %s', async (file, source, allowed) => {
    const errors = await boundaryErrors(file, `import '${source}';\n`);
    if (allowed) expect(errors).toEqual([]);
    else expect(errors).toHaveLength(1);
  });

  it('checks re-exports and dynamic imports too', async () => {
    expect(await boundaryErrors('src/state/x.ts', `export { Pager } from '../ui/Pager';\n`)).toHaveLength(1);
    const lazy = `export const v = () => import('../classroom/ClassroomView');\n`;
    expect(await boundaryErrors('src/features/puzzle/x.ts', lazy)).toHaveLength(1);
    expect(await boundaryErrors('src/app/x.ts', lazy.replace('../classroom', '../features/classroom'))).toEqual([]);
  });

  it('refuses a file that no layer claims', async () => {
    expect(await boundaryErrors('tools/x.ts', 'export const x = 1;\n')).toEqual([
      'boundaries: no layer claims "tools/x.ts": add it to LAYERS in eslint.config.js',
    ]);
  });
});

describe('pure layers', () => {
  it.each(['src/core/text/x.ts', 'src/graph/layout/x.ts'])('%s uses no DOM or Node globals', async (file) => {
    expect(await lint(file, 'export const w = () => document.body;\n')).toContain('no-restricted-globals');
    expect(await lint(file, 'export const w = () => window.innerWidth;\n')).toContain('no-restricted-globals');
    expect(await lint(file, 'export const e = () => process.env;\n')).toContain('no-restricted-globals');
    expect(await lint(file, 'export const m = (a: number) => Math.max(a, new Map().size);\n')).toEqual([]);
  });

  it('leaves the other layers their globals', async () => {
    expect(await lint('src/ui/x.ts', 'export const w = () => document.body;\n')).toEqual([]);
  });
});

describe('no barrels', () => {
  it('forbids export * and keeps named re-exports', async () => {
    expect(await lint('src/ui/x.ts', `export * from './format';\n`)).toEqual(['no-restricted-syntax']);
    expect(await lint('src/ui/x.ts', `export * as format from './format';\n`)).toEqual(['no-restricted-syntax']);
    expect(await lint('src/ui/x.ts', `export { formatCount } from './format';\n`)).toEqual([]);
  });
});

describe('import cycles', () => {
  // src/core/puzzle/dataset.ts imports generatePuzzle from ./puzzle at run time.
  it('reports a module that imports back what imports it', async () => {
    const code = `import { DEFAULT_DATASET } from './dataset';\nexport const d = DEFAULT_DATASET;\n`;
    expect(await lint('src/core/puzzle/puzzle.ts', code)).toContain('import-x/no-cycle');
  });

  it('lets a type-only import close a loop (it is erased at run time)', async () => {
    const code = `import type { DatasetSpec } from './dataset';\nexport type D = DatasetSpec;\n`;
    expect(await lint('src/core/puzzle/puzzle.ts', code)).toEqual([]);
  });
});

describe('React hooks', () => {
  it('applies the recommended rules to components', async () => {
    const code = `import { useState } from 'react';\nexport function C(p: { on: boolean }) {\n  if (p.on) useState(0);\n  return null;\n}\n`;
    expect(await lint('src/ui/x.tsx', code)).toContain('react-hooks/rules-of-hooks');
    const ok = `import { useState } from 'react';\nexport function C() {\n  const [n] = useState(0);\n  return n;\n}\n`;
    expect(await lint('src/ui/x.tsx', ok)).toEqual([]);
  });
});

describe('exceptions', () => {
  let tables: ConfigTables;
  beforeAll(async () => {
    tables = (await import(pathToFileURL(path.join(root, 'eslint.config.js')).href)) as ConfigTables;
  });

  it('each boundary exception is still needed (delete it from EXCEPTIONS once it is not)', () => {
    const stale = tables.EXCEPTIONS.filter(({ file, target }) => {
      const text = readFileSync(path.join(root, file), 'utf8');
      const targets = [...text.matchAll(/from\s+'(\.[^']+)'/g)].map((m) =>
        path.posix.join(path.posix.dirname(file), m[1]!),
      );
      return !targets.includes(target);
    });
    expect(stale).toEqual([]);
  });

  it('each React hooks exception is still needed (delete it from HOOK_EXCEPTIONS once it is not)', async () => {
    const stale: string[] = [];
    for (const { file, rule } of tables.HOOK_EXCEPTIONS) {
      const strict = new ESLint({ cwd: root, overrideConfig: { files: [file], rules: { [rule]: 'error' } } });
      const [result] = await strict.lintFiles([path.join(root, file)]);
      if (!result!.messages.some((m) => m.ruleId === rule)) stale.push(`${file} now passes ${rule}`);
    }
    expect(stale).toEqual([]);
  });
});
