import { describe, expect, it } from 'vitest';
import { ANSWER_WORDS } from '../../llm/answers';
import type { FetchLike } from '../../llm/client';
import { createLlmRunStore, llmTestItems } from './llmRunStore';

describe('the models view’s language-model curve', () => {
  it('makes the same test items for a seed, each with a gold word among the 18', () => {
    const a = llmTestItems('1', 3, 4);
    expect(a).toHaveLength(4);
    expect(llmTestItems('1', 3, 4)).toEqual(a);
    for (const it of a) {
      expect(ANSWER_WORDS).toContain(it.gold);
      expect(it.story).toContain(it.a);
      expect(it.story).toContain(it.b);
    }
  });

  it('counts each k: a stub right on k = 2, unparseable on k = 3', async () => {
    const golds = new Map([...llmTestItems('7', 2, 3), ...llmTestItems('7', 3, 3)].map((i) => [i.story, i] as const));
    const fetch: FetchLike = async (_url, init) => {
      const prompt = (JSON.parse(init.body) as { messages: { content: string }[] }).messages[0]!.content;
      const item = [...golds.values()].find(
        (i) => prompt.includes(`How is ${i.b} related to ${i.a}?`) && prompt.includes(i.story.replace(/\[|\]/g, '')),
      )!;
      const content = item.id.startsWith('k2') ? `So the answer is: ${item.gold}` : 'Je ne sais pas.';
      return {
        ok: true,
        status: 200,
        headers: { get: () => null },
        text: async () => JSON.stringify({ choices: [{ message: { content } }] }),
      };
    };
    const store = createLlmRunStore(
      () => ({ fetch, now: () => 0, sleep: async () => {} }),
      (e) => String(e),
      [2, 3],
    );
    await store.getState().start({ url: 'http://127.0.0.1:9', model: 'stub' }, 'zero-shot', 3, '7');
    const s = store.getState();
    expect(s.status).toBe('done');
    expect(s.byK).toEqual([
      { k: 2, rows: 3, correct: 3, unparseable: 0, errors: 0 },
      { k: 3, rows: 3, correct: 0, unparseable: 3, errors: 0 },
    ]);
    expect(s.message).toBe('stub answered 6 puzzles; unparseable=3.');
  });
});
