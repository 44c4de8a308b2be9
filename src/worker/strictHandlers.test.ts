import { describe, expect, it } from 'vitest';
import { handlers } from './handlers';
import type { ExplorerText } from './protocol';

const TEXT: ExplorerText = {
  synthetic: true,
  combinationLength: 1,
  templateSplit: false,
  half: 'train',
  storyOrder: 'path',
};

describe('story handler', () => {
  it('passes strict through to the generator', async () => {
    const body = { seed: '2', k: 10, task: 1 as const, text: TEXT };
    const loose = await handlers.story(body);
    const strict = await handlers.story({ ...body, strict: true });
    expect(loose.puzzle.strict).toBeUndefined();
    expect(strict.puzzle.strict).toBe(true);
    expect(strict.puzzle.pattern).not.toBe(loose.puzzle.pattern);
  });
});
