import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import { unbracket } from '../../core/text/render';
import { CLASSES, NUM_CLASSES } from '../../ml/encoding';
import { rowsToCsv, type ResultRow } from '../../study/results/results';
import { handlers } from '../../worker/handlers';
import { answeredItems, type AnsweredItem } from '../../study/results/figures';
import {
  bracketNames,
  compareByK,
  llmItemAnswer,
  llmItemOf,
  modelItemAnswer,
  rebuildItem,
  storyRequestFor,
  STUDY_TEXT_SPLITS,
  type ModelItemAnswer,
} from './modelItems';
import { NO_ESTIMATE } from '../../study/results/resultFields';

const generate = (item: AnsweredItem, split: (typeof STUDY_TEXT_SPLITS)[number]) =>
  handlers.story(storyRequestFor(item, split)) as ReturnType<typeof handlers.story> & object;

/** A row as the participant's page records it: the worker's puzzle and story for (seed, k, task). */
function realRow(
  seed: number,
  k: number,
  split: 'all' | 'train' | 'test',
  session: string,
  correct: boolean,
): ResultRow {
  const { puzzle, story } = handlers.story(
    storyRequestFor({ seed, k, task: 1, strict: false } as AnsweredItem, split),
  ) as ReturnType<typeof handlers.story> & object;
  return {
    study_id: 's',
    session_id: session,
    participant_id: '',
    condition: 'c',
    trial_index: 0,
    phase: 'main',
    puzzle_id: `main-${seed}`,
    seed,
    k,
    task: 1,
    strict: false,
    query_a: puzzle.entities[puzzle.query[0]]!.name,
    query_b: puzzle.entities[puzzle.query[1]]!.name,
    gold: puzzle.target.word,
    response: correct ? puzzle.target.word : puzzle.target.word === 'uncle' ? 'aunt' : 'uncle',
    correct,
    difficulty: 3,
    rt_ms: 1000,
    ended_on: 'response',
    time_limit_s: null,
    answer_changes: 0,
    hidden_ms: 0,
    resumed: false,
    started_at: '',
    answered_at: '',
    story: unbracket(story.story),
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
  };
}

describe('models on the items people answered', () => {
  it('collects main items once each with people’s answers; practice and checks left out', () => {
    const a = realRow(11, 2, 'all', 'p1', true);
    const rows: ResultRow[] = [
      a,
      { ...a, session_id: 'p2', correct: false },
      { ...realRow(12, 3, 'all', 'p1', true), trial_index: 1 },
      { ...a, phase: 'check', puzzle_id: 'check-0' },
      { ...a, phase: 'practice', puzzle_id: 'practice-0' },
    ];
    const items = answeredItems(rows);
    expect(items.map((i) => [i.puzzle_id, i.k, i.answers, i.correct])).toEqual([
      ['main-11', 2, 2, 1],
      ['main-12', 3, 1, 1],
    ]);
  });

  it('rebuilds the very story the person read, under the study’s template split', () => {
    for (const split of ['all', 'test'] as const) {
      const [item] = answeredItems([realRow(21, 4, split, 'p', true)]);
      const made = STUDY_TEXT_SPLITS.map((s) => generate(item!, s));
      const rebuilt = rebuildItem(
        item!,
        made[0]!.puzzle,
        made.map((m) => m.story),
      );
      expect(rebuilt.ok).toBe(true);
      if (!rebuilt.ok) return;
      expect(rebuilt.story).toBe('regenerated');
      expect(unbracket(rebuilt.question.story)).toBe(item!.story);
      expect(rebuilt.question.story).toContain(`[${item!.query_a}]`);
      expect(rebuilt.question.queryNames).toEqual([item!.query_a, item!.query_b]);
      expect(rebuilt.question.graph.from.length).toBeGreaterThanOrEqual(4);
    }
  });

  it('brackets the row’s own story when no regenerated story reads the same', () => {
    const [item] = answeredItems([{ ...realRow(31, 2, 'all', 'p', true), story: 'X' }]);
    const { puzzle } = generate(item!, 'all');
    const names = puzzle.entities.map((e) => e.name);
    const changed = { ...item!, story: `${names[0]} went out. ${names[1]} too.` };
    const rebuilt = rebuildItem(changed, puzzle, []);
    expect(rebuilt).toMatchObject({ ok: true, story: 'bracketed' });
    if (rebuilt.ok) expect(rebuilt.question.story).toBe(`[${names[0]}] went out. [${names[1]}] too.`);
  });

  it('refuses an item whose seed makes another puzzle (e.g. the simulated fixture), saying why', () => {
    const [item] = answeredItems([{ ...realRow(41, 2, 'all', 'p', true), query_a: 'Zed', gold: 'aunt' }]);
    const { puzzle, story } = generate(item!, 'all');
    const rebuilt = rebuildItem(item!, puzzle, [story]);
    expect(rebuilt.ok).toBe(false);
    if (!rebuilt.ok)
      expect(rebuilt.reason).toMatch(/^seed 41 \(k = 2, task 1\) makes a puzzle about .* the file says Zed and /);
  });

  it('brackets whole names only, longest first, leaving bracketed text alone', () => {
    expect(bracketNames('Anna and Annabel met [Anna]. Annabel’s son Ben-Anna.', ['Anna', 'Annabel'])).toBe(
      '[Anna] and [Annabel] met [Anna]. [Annabel]’s son Ben-[Anna].',
    );
    expect(bracketNames('Joséphine saw José.', ['José'])).toBe('Joséphine saw [José].');
    expect(bracketNames('a.b', ['a.b', ''])).toBe('[a.b]');
  });

  it('a model’s answer is its most probable class, right when it is the gold word', () => {
    const probs = new Float32Array(NUM_CLASSES).fill(0.01);
    probs[CLASSES.indexOf('aunt')] = 0.8;
    expect(modelItemAnswer(probs, 'aunt')).toMatchObject({ word: 'aunt', correct: true });
    expect(modelItemAnswer(probs, 'uncle').correct).toBe(false);
    expect(modelItemAnswer(probs, 'aunt').probability).toBeCloseTo(0.8);
  });

  it('compares by k: people over answers, models over items, and an all row', () => {
    const items = answeredItems([
      realRow(11, 2, 'all', 'p1', true),
      realRow(11, 2, 'all', 'p2', false),
      realRow(11, 2, 'all', 'p3', true),
      realRow(12, 3, 'all', 'p1', false),
    ]);
    const right: ModelItemAnswer = { word: 'x', probability: 1, correct: true };
    const wrong: ModelItemAnswer = { ...right, correct: false };
    const answers = new Map([
      [
        'gat/1',
        new Map([
          [items[0]!.key, right],
          [items[1]!.key, wrong],
        ]),
      ],
      ['lstm/1', new Map([[items[0]!.key, wrong]])],
    ]);
    const rows = compareByK(items, answers);
    expect(rows.map((r) => r.k)).toEqual([2, 3, 0]);
    expect(rows[0]!.people).toEqual({ answers: 3, correct: 2, accuracy: 2 / 3 });
    expect(rows[0]!.peopleAsked).toEqual({ items: 1, answers: 3, correct: 2, accuracy: 2 / 3 });
    expect(rows[1]!.peopleAsked).toEqual({ items: 1, answers: 1, correct: 0, accuracy: 0 });
    expect(rows[0]!.models['gat/1']).toEqual({ items: 1, correct: 1, accuracy: 1 });
    expect(rows[1]!.models['lstm/1']!.items).toBe(0);
    expect(rows[1]!.models['lstm/1']!.accuracy).toBeNaN();
    expect(rows[2]!.models['gat/1']).toEqual({ items: 2, correct: 1, accuracy: 0.5 });
    expect(rows[2]!.people.answers).toBe(4);
  });
});

/**
 * e2e/fixtures/results-real.csv: a study with the default settings (template split `all`) over
 * real puzzles, 3 items at each k = 2, 3, 4 answered by 4 simulated people, its stories written
 * by the generator worker's own handler, as the participant's page gets them. The dashboard's
 * e2e test asks the models about it. Regenerate with `npx vitest run <this file> --update`.
 */
function realResultsFixture(): string {
  const pick = createRng('models-report-e2e', 'answers');
  const rows: ResultRow[] = [];
  let seed = 1000;
  let item = 0;
  for (const k of [2, 3, 4])
    for (let i = 0; i < 3; i++, item++) {
      seed++;
      for (let p = 1; p <= 4; p++) {
        const correct = pick.chance(k === 2 ? 0.9 : k === 3 ? 0.7 : 0.5);
        const row = realRow(seed, k, 'all', `real-${p}`, correct);
        rows.push({
          ...row,
          study_id: 'models-e2e',
          participant_id: `p${p}`,
          condition: 'untimed',
          trial_index: item,
          puzzle_id: `real-k${k}-${i}`,
          rt_ms: 20_000,
          started_at: '2026-03-02T09:00:00.000Z',
          answered_at: '2026-03-02T09:00:20.000Z',
        });
      }
    }
  return rowsToCsv(rows);
}

describe('the e2e results file of real puzzles', () => {
  it('is the output of realResultsFixture()', async () => {
    await expect(realResultsFixture()).toMatchFileSnapshot('../../../e2e/fixtures/results-real.csv');
  });
});

describe('the language model on the items', () => {
  const item = {
    key: 'p|1|2|1|false',
    story: 'Russell is the brother of Edith.',
    query_a: 'Edith',
    query_b: 'Russell',
    gold: 'brother',
  } as AnsweredItem;

  it('is asked the story and names the person read, with the gold word', () => {
    expect(llmItemOf(item)).toEqual({
      id: 'p|1|2|1|false',
      story: 'Russell is the brother of Edith.',
      a: 'Edith',
      b: 'Russell',
      gold: 'brother',
    });
  });

  it('an unparseable reply or a failed request is a wrong answer, named as such', () => {
    const base = { id: 'x', prompt: 'p', gold: 'brother', ms: 1, tokens: null, attempts: 1 } as const;
    expect(
      llmItemAnswer({ ...base, reply: 'brother', outcome: 'answer', answer: 'brother', reason: null, correct: true }),
    ).toEqual({ word: 'brother', probability: NaN, correct: true });
    expect(
      llmItemAnswer({ ...base, reply: 'no idea', outcome: 'unparseable', answer: null, reason: 'r', correct: false }),
    ).toEqual({ word: 'unparseable', probability: NaN, correct: false });
    expect(
      llmItemAnswer({ ...base, reply: null, outcome: 'error', answer: null, reason: 'HTTP 500', correct: false }),
    ).toMatchObject({ word: 'no reply', correct: false });
  });
});
