/**
 * The shipped models' answers, pinned: every folder under public/models answers the same fresh
 * questions (k = 2, 3, 6; clean and noisy) with the same probabilities, to six decimals. A change
 * to the encoders, the nets or the loader that alters an answer changes a digest here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBackend } from './backend';
import { loadModel } from './load';
import type { ModelIndex } from './model';
import { testQuestions } from './testData';

const MODELS = path.join(process.cwd(), 'public', 'models');
const index = JSON.parse(readFileSync(path.join(MODELS, 'index.json'), 'utf8')) as ModelIndex;
const QUESTIONS = [
  ...testQuestions(4242, 'clean', 2, 4),
  ...testQuestions(4242, 'clean', 3, 4),
  ...testQuestions(4242, 'supporting', 3, 3),
  ...testQuestions(4242, 'clean', 6, 3),
];

/** Digests (sha-256, first 16 hex digits) taken before the study wing and src/ml moved into their rooms. */
const EXPECTED: Record<string, string> = {
  'gat-improved-answer-only/1': '018742ef4cbf0053',
  'gat-improved/1': '8d6a3d18803b9508',
  'gat/1': 'c682789887ba8c15',
  'gat/1-clutrr-labels': '399fd988c30077ce',
  'gat/1-disconnected': '98038cd7b2b9b714',
  // The noise GATs trained on CLUTRR's labels too (new folders; issue 31).
  'gat/1-disconnected-clutrr-labels': '4679446fc3c98f22',
  'gat/1-irrelevant-clutrr-labels': 'a2903d1a1a149d08',
  'gat/1-supporting-clutrr-labels': '3eb04e2e57d7af75',
  'gat/1-irrelevant': '785aaf7b220642f8',
  'gat/1-supporting': 'c4d41fb0e20c268d',
  'lstm-mean/1': '6bfe57a6ba9f1136',
  // Added with the wide bank (new folders, not changed ones; issue 31).
  'lstm-mean/2-wide': 'f81a1b036bcad12d',
  'lstm-mean/2-wide-clutrr-labels': '03a0ba2be5e1e6b5',
  'lstm/1': '162a65c0b5de59c3',
  'mac/1': '3c59a5c0bba622d9',
  // Added with the path composer (a new folder, not a changed one).
  'path-composer/1': 'd2be4143917d2b98',
  'rn/1': 'aa6ee36f042d616e',
  // The text models retrained after the BiLSTM gradient fix (new folders beside the old; issue 31).
  'lstm-mean/2-fixed-grad': 'd203589330f74770',
  'lstm-mean/2-fixed-grad-best': '8f3c94814a1a18ef',
  'lstm/2-fixed-grad': 'b5048c57a3b363df',
  'mac/2-fixed-grad': '8a6af27536cd67a1',
  'rn/2-fixed-grad': 'c16e98c0637bddd8',
};

describe('shipped models', () => {
  it('give the answers pinned here', async () => {
    await useBackend('cpu');
    const got: Record<string, string> = {};
    for (const entry of index.models) {
      const dir = path.join(MODELS, entry.id);
      const weights = readFileSync(path.join(dir, 'weights.bin'));
      const model = loadModel(
        JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')),
        weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      );
      const answers = await model.answer(QUESTIONS);
      model.dispose();
      const text = answers
        .map((a) => [...a.probs, ...(a.factAttention ?? [])].map((p) => p.toFixed(6)).join(','))
        .join('\n');
      got[entry.id] = createHash('sha256').update(text).digest('hex').slice(0, 16);
    }
    expect(got).toEqual(EXPECTED);
  }, 120_000);
});
