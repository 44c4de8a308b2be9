import { expect, it } from 'vitest';
import { generatePuzzle } from '../puzzle/puzzle';
import type { TaskId } from '../puzzle/tasks';
import { createRng } from '../random/rng';
import { OUR_BANK } from './bank';
import { type CombinationLength, createParaphraseRenderer } from './paraphrase';
import type { Split } from './render';

/**
 * Golden stories at fixed seeds: read once by a person, then kept stable. A change to the bank,
 * the stitching or the generator shows up here as a diff; after reviewing it, update with
 * `npx vitest run src/core/text/golden.test.ts -u`.
 */
const SETTINGS: readonly {
  seed: string;
  k: number;
  task: TaskId;
  cl: CombinationLength;
  split: Split;
  held?: boolean;
}[] = [
  { seed: 'golden-1', k: 1, task: 1, cl: 1, split: 'train' },
  { seed: 'golden-2', k: 2, task: 1, cl: 2, split: 'train' },
  { seed: 'golden-3', k: 2, task: 6, cl: 3, split: 'test', held: true },
  { seed: 'golden-4', k: 3, task: 1, cl: 3, split: 'train' },
  { seed: 'golden-5', k: 3, task: 2, cl: 3, split: 'train' },
  { seed: 'golden-6', k: 3, task: 3, cl: 2, split: 'test', held: true },
  { seed: 'golden-7', k: 4, task: 4, cl: 3, split: 'train' },
  { seed: 'golden-8', k: 5, task: 5, cl: 3, split: 'train' },
  { seed: 'golden-9', k: 6, task: 7, cl: 3, split: 'test' },
  { seed: 'golden-10', k: 8, task: 1, cl: 1, split: 'train' },
  { seed: 'golden-11', k: 10, task: 2, cl: 3, split: 'train' },
];

it('renders the golden stories', async () => {
  const blocks = SETTINGS.map((s) => {
    const p = generatePuzzle({ seed: s.seed, k: s.k, task: s.task });
    const render = createParaphraseRenderer({
      bank: OUR_BANK,
      combinationLength: s.cl,
      templateSplit: s.held ? { seed: 'golden' } : undefined,
    });
    const r = render(p, s.split, createRng(p.seed, 'text'));
    return [
      `## seed ${s.seed}, k ${s.k}, task ${s.task}, combination length ${s.cl}, ${s.split}${s.held ? ' (template split)' : ''}`,
      `pattern: ${p.pattern}; answer: ${p.target.word}`,
      'story:',
      ...r.sentences.map((x) => `  ${x.text}   {${x.factIds.map((id) => `${id}:${p.facts[id]!.kind}`).join(' ')}}`),
      `clean: ${r.cleanStory}`,
      `question: ${r.question}`,
      `target: ${r.textTarget}`,
    ].join('\n');
  });
  await expect(blocks.join('\n\n') + '\n').toMatchFileSnapshot('./__golden__/stories.txt');
});
