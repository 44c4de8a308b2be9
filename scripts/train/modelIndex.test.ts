import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MODEL_KINDS } from '../../src/ml/modelKinds';
import { describedMetadata, describeFolders, readModelFolders } from './modelIndex';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A model folder as the training script wrote it before the descriptor (label "GAT, improved"). */
const OLD = {
  model: 'gat-improved',
  kind: 'gat',
  label: 'GAT, improved',
  version: '1',
  seed: '1',
  training: {
    noise: 'clean',
    tasks: [
      { task: 1, k: 2 },
      { task: 1, k: 3 },
    ],
    rows: 5000,
    epochs: 10,
    seconds: 559,
  },
  test: { rows: 500, accuracy: { '2': 1, '10': 0.998 } },
  robustness: [{ test: 'clean', rows: 1000, accuracy: 1 }],
};

function tree(folders: Record<string, object>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'models-'));
  roots.push(root);
  for (const [id, meta] of Object.entries(folders)) {
    mkdirSync(path.join(root, id), { recursive: true });
    writeFileSync(path.join(root, id, 'metadata.json'), JSON.stringify(meta, null, 2) + '\n');
    writeFileSync(path.join(root, id, 'weights.bin'), new Uint8Array(12));
  }
  return root;
}

describe('index.json and the descriptive facts', () => {
  it('a folder written before the descriptor is indexed with the descriptor’s facts and its training', () => {
    const root = tree({ 'gat-improved/1': OLD });
    const [entry] = readModelFolders(root).models;
    expect(entry).toEqual({
      id: 'gat-improved/1',
      model: 'gat-improved',
      version: '1',
      kind: 'gat',
      label: 'Relation composer, rule-supervised',
      reads: 'graph',
      supervision: 'answer+rule-pairs',
      attention: 'facts',
      paperModel: null,
      description: MODEL_KINDS['gat-improved'].description,
      trainedOn: { noise: 'clean', preset: 'none', labels: 'family', rows: 5000, ks: [2, 3] },
      weightBytes: 12,
    });
  });

  it('--describe rewrites only the descriptive facts, after kind, and leaves what was measured', () => {
    const described = describedMetadata('gat-improved', OLD);
    expect(Object.keys(described)).toEqual([
      'model',
      'kind',
      'label',
      'reads',
      'supervision',
      'attention',
      'paperModel',
      'description',
      'version',
      'seed',
      'training',
      'test',
      'robustness',
    ]);
    expect(described).toMatchObject({ label: 'Relation composer, rule-supervised', supervision: 'answer+rule-pairs' });
    const { training, test, robustness, seed, version } = described as typeof OLD;
    expect({ training, test, robustness, seed, version }).toEqual({
      training: OLD.training,
      test: OLD.test,
      robustness: OLD.robustness,
      seed: OLD.seed,
      version: OLD.version,
    });
  });

  it('--describe on a tree: changes the stale folders, writes index.json, and a second run changes nothing', () => {
    const fresh = describedMetadata('lstm', { ...OLD, model: 'lstm', kind: 'lstm', label: 'BiLSTM-attention (paper)' });
    const root = tree({ 'gat-improved/1': OLD, 'lstm/1': fresh });
    expect(describeFolders(root)).toEqual(['gat-improved/1']);
    const meta = JSON.parse(readFileSync(path.join(root, 'gat-improved/1/metadata.json'), 'utf8'));
    expect(meta.label).toBe('Relation composer, rule-supervised');
    expect(meta.test).toEqual(OLD.test);
    const index = JSON.parse(readFileSync(path.join(root, 'index.json'), 'utf8'));
    expect(index).toEqual(readModelFolders(root));
    expect(index.models.map((m: { id: string }) => m.id)).toEqual(['gat-improved/1', 'lstm/1']);
    expect(describeFolders(root)).toEqual([]);
  });

  it('a folder of a model the descriptor does not know is refused by name', () => {
    const root = tree({ 'bert/1': { ...OLD, model: 'bert' } });
    expect(() => readModelFolders(root)).toThrow(/bert\/1: unknown model "bert"/);
  });
});
