import { describe, expect, it } from 'vitest';
import { CLASSES, classIndex, NUM_CLASSES } from '../../ml/encoding';
import type { ModelQuestion } from '../../ml/model';
import { indexEntry } from '../../ml/modelKinds';
import { readResultsFile } from '../../study/results/resultsFile';
import { handlers } from '../../worker/handlers';
import { answeredItems } from '../../study/results/figures';
import { createCompareStore, type CompareClient, type StoryMaker } from './modelsStore';
import { readFileSync } from 'node:fs';

const story: StoryMaker = async (body) => handlers.story(body) as Awaited<ReturnType<StoryMaker>>;

/** A fake models worker whose model answers every question with the gold word of its graph. */
function fakeClient(calls: string[]): CompareClient {
  return {
    index: async () => ({
      models: [indexEntry('gat', '1', {}, 1), indexEntry('gat', '1-irrelevant', { noise: 'irrelevant' }, 1)],
    }),
    load: async (id) => {
      calls.push(`load ${id}`);
      return { id, kind: 'gat', backend: 'cpu', loadMs: 0, warmupMs: 0, weightBytes: 1 };
    },
    answer: async (id, questions: readonly ModelQuestion[]) => {
      calls.push(`answer ${id} ${questions.length}`);
      return {
        answers: questions.map((q) => {
          const probs = new Float32Array(NUM_CLASSES);
          probs[q.graph.label ?? 0] = 1;
          return { probs };
        }),
        ms: 0,
        backend: 'cpu',
      };
    },
    reset: () => calls.push('reset'),
  };
}

describe('the dashboard’s model comparison', () => {
  it('rebuilds the real items of a file and asks each main model once, the simulated ones named', async () => {
    const real = readResultsFile('real.csv', readFileSync('e2e/fixtures/results-real.csv', 'utf8'));
    const simulated = readResultsFile('a.csv', readFileSync('e2e/fixtures/results-a.csv', 'utf8'));
    const items = answeredItems([...real.rows, ...simulated.rows.slice(0, 200)]);
    const calls: string[] = [];
    const store = createCompareStore(
      () => fakeClient(calls),
      story,
      () => 'http://x/',
    );
    await store.getState().ask(items);
    const s = store.getState();
    expect(s.status).toBe('done');
    expect(calls).toEqual(['load gat/1', 'answer gat/1 9']);
    const realItems = items.filter((i) => i.puzzle_id.startsWith('real-'));
    expect(realItems).toHaveLength(9);
    for (const i of realItems) {
      expect(s.rebuilt[i.key]).toMatchObject({ ok: true, story: 'regenerated' });
      // The fake answers with the graph's label, so the rebuilt puzzle's answer is the row's gold.
      expect(s.answers['gat/1']![i.key]).toMatchObject({ word: CLASSES[classIndex(i.gold)], correct: true });
    }
    const refused = items.filter((i) => !i.puzzle_id.startsWith('real-'));
    expect(refused.length).toBeGreaterThan(0);
    for (const i of refused) expect(s.rebuilt[i.key]?.ok).toBe(false);
    expect(s.message).toMatch(new RegExp(`^1 model answered 9 items; ${refused.length} could not be rebuilt`));
  });
});
