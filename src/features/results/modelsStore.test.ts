import { describe, expect, it } from 'vitest';
import { CLASSES, classIndex, NUM_CLASSES } from '../../ml/encoding';
import type { ModelQuestion } from '../../ml/model';
import { indexEntry } from '../../ml/modelKinds';
import { readResultsFile } from '../../study/results/resultsFile';
import { handlers } from '../../worker/handlers';
import { answeredItems } from '../../study/results/figures';
import type { FetchLike } from '../../llm/client';
import { compareByK, LLM_COLUMN, llmItemAnswer } from './modelItems';
import { createCompareStore, createLlmCompareStore, type CompareClient, type StoryMaker } from './modelsStore';
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

describe('the dashboard’s language model', () => {
  const KEY = 'sk-dash-SECRET-77';
  const real = readResultsFile('real.csv', readFileSync('e2e/fixtures/results-real.csv', 'utf8'));
  const items = answeredItems(real.rows);
  /** An in-process chat-completions stub: right on k = 2, a refusal on k = 3, a wrong word beyond. */
  const stubFetch =
    (seen: string[]): FetchLike =>
    async (_url, init) => {
      seen.push(init.headers.Authorization ?? '');
      const prompt = (JSON.parse(init.body) as { messages: { content: string }[] }).messages[0]!.content;
      const item = items.find(
        (i) => prompt.includes(i.story) && prompt.includes(`How is ${i.query_b} related to ${i.query_a}?`),
      )!;
      const content = item.k === 2 ? `Answer: ${item.gold}` : item.k === 3 ? 'I cannot say.' : 'son-in-law';
      return {
        ok: true,
        status: 200,
        headers: { get: () => null },
        text: async () => JSON.stringify({ choices: [{ message: { content } }] }),
      };
    };

  it('asks every item with the row’s story and names, and its answers join the comparison by k', async () => {
    const seen: string[] = [];
    const store = createLlmCompareStore(() => ({ fetch: stubFetch(seen), now: () => 0, sleep: async () => {} }));
    await store.getState().ask(items, { url: 'http://127.0.0.1:9/v1', model: 'stub', apiKey: KEY }, 'cot');
    const s = store.getState();
    expect(s.status).toBe('done');
    expect(s.run).toEqual({ model: 'stub', prompt: 'cot', origin: 'http://127.0.0.1:9' });
    expect(seen).toHaveLength(items.length);
    expect(seen.every((h) => h === `Bearer ${KEY}`)).toBe(true);
    const k3 = items.filter((i) => i.k === 3).length;
    expect(s.message).toBe(`stub answered ${items.length} items; unparseable=${k3}.`);
    const answers = new Map(Object.entries(s.answers).map(([key, r]) => [key, llmItemAnswer(r)] as const));
    const rows = compareByK(items, new Map([[LLM_COLUMN, answers]]));
    for (const r of rows.filter((x) => x.k > 0)) {
      const want = r.k === 2 ? 1 : 0;
      expect(r.models[LLM_COLUMN]).toMatchObject({ items: r.items, accuracy: want });
    }
    expect(JSON.stringify(s)).not.toContain(KEY);
  });

  it('a refused origin stops the run with the explanation', async () => {
    const store = createLlmCompareStore(
      () => ({
        fetch: async () => {
          throw new TypeError('Failed to fetch');
        },
        now: () => 0,
        sleep: async () => {},
      }),
      (e, url) => `explained ${url}: ${(e as Error).message}`,
    );
    await store.getState().ask(items, { url: 'http://127.0.0.1:9', model: 'stub', apiKey: KEY }, 'zero-shot');
    const s = store.getState();
    expect(s.status).toBe('error');
    expect(s.message).toMatch(/^explained http:\/\/127\.0\.0\.1:9: .*no answer \(Failed to fetch\)/);
    expect(s.message).not.toContain(KEY);
  });
});
