/**
 * Questions and helpers shared by the unit tests of the models behind the BiLSTM encoder
 * (rn.test.ts, mac.test.ts): hand-written stories and a small set of generated ones, and a
 * tokeniser learned from them. Test support only; no model imports it.
 */
import { classIndex, type StoryGraph } from '../encoding';
import type { ModelQuestion } from '../model';
import { makeExamples } from '../testData';
import { learnTokenizer, type TextTokenizer } from './tokens';

export const question = (story: string, a: string, b: string, answer: string): ModelQuestion => ({
  graph: { label: classIndex(answer) } as StoryGraph,
  story,
  queryNames: [a, b],
});

/** Four short stories of one to three sentences. */
export const QUESTIONS: readonly ModelQuestion[] = [
  question('[Ann] is the mother of [Bob]. [Bob] has a son, [Carl].', 'Ann', 'Carl', 'grandson'),
  question('[Dora] went fishing with her brother [Ed].', 'Dora', 'Ed', 'brother'),
  question(
    '[Finn] and his sister [Gail] baked a cake. [Gail] has a daughter, [Hope]! Where is [Finn]?',
    'Finn',
    'Hope',
    'niece',
  ),
  question('[Ivy] is the daughter of [Jack].', 'Jack', 'Ivy', 'daughter'),
];

/** `rows` generated clean puzzles of each k (our engine, training split, seed 1). */
export function generatedQuestions(rows: number, ks: readonly number[] = [2, 3]): ModelQuestion[] {
  return ks.flatMap((k) => makeExamples(1, 1, { task: 1, k }, 'train', rows).map((e) => e.question));
}

/** A tokeniser of these questions' words (every word seen once is a token). */
export function tokenizerOf(questions: readonly ModelQuestion[]): TextTokenizer {
  return learnTokenizer(
    questions.map((q) => q.story),
    { minWordCount: 1 },
  );
}
