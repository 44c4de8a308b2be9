import { describe, expect, it, vi } from 'vitest';

// jsPsych's module sets a global on `window` when imported; Node has none.
vi.hoisted(() => {
  (globalThis as { window?: unknown }).window ??= globalThis;
});

import { generatePuzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { datasetRenderer } from '../core/text/datasetText';
import { withDefaults } from '../study/definition/definition';
import { encodeStudyLink } from '../study/definition/link';
import { scheduleParticipant } from '../study/schedule/schedule';
import { storyRequest, trialContent } from '../study/schedule/trialContent';
import ClutrrPlugin, { checkTrial } from './plugin';
import { makeClutrrPuzzle } from './puzzle';
import { clutrrTimeline } from './timeline';

const def = withDefaults({
  studyId: 'jspsych-check',
  seed: 4242,
  k: [2, 3],
  tasks: [1, 2],
  itemsPerK: 2,
  practice: 2,
  attentionChecks: 2,
  templateSplit: 'test',
  conditions: [
    { id: 'timed', perPuzzleLimitS: 45, overallLimitS: null, display: 'text+drawing', scratchpad: false },
    { id: 'untimed', perPuzzleLimitS: null, overallLimitS: null, display: 'text', scratchpad: false },
  ],
});
const token = encodeStudyLink(def);

describe('clutrrTimeline', () => {
  it.each([0, 1])(
    'gives participant %i of a link the designer study’s puzzles (story, names, gold)',
    (participantNumber) => {
      const trials = clutrrTimeline(`https://lab.example/?study=${token}&PROLIFIC_PID=x`, {
        plugin: ClutrrPlugin,
        participantNumber,
        sessionSeed: 'p-1',
      });
      const schedule = scheduleParticipant(def, { participantNumber, sessionSeed: 'p-1' });
      expect(trials).toHaveLength(schedule.trials.length);
      expect(trials.length).toBe(2 + 2 * 2 * 2 + 2);
      expect(trials.filter((t) => t.feedback).map((t) => t.phase)).toEqual(['practice', 'practice']);
      expect(trials.filter((t) => t.phase === 'check')).toHaveLength(2);
      for (const [i, trial] of trials.entries()) {
        const { item } = schedule.trials[i]!;
        // The study's way: its generator request, the core generator and story writer.
        const body = storyRequest(def, item);
        const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
        const story = datasetRenderer(body.text, '1').render(puzzle, body.text.half, createRng(puzzle.seed, 'text'));
        const study = trialContent(puzzle, story, item);
        // The plugin's way, from the trial's parameters only.
        const settings = checkTrial(trial);
        const mine = makeClutrrPuzzle({
          seed: settings.seed,
          k: settings.k,
          task: settings.task,
          strict: settings.strict,
          templateSplit: settings.template_split,
          storyOrder: settings.story_order,
          phase: settings.phase,
          puzzleId: settings.puzzle_id,
        }).content;
        expect(mine).toEqual(study);
        expect(trial.data.condition).toBe(schedule.condition.id);
        expect(trial.display).toBe(schedule.condition.display);
        expect(trial.time_limit).toBe(schedule.condition.perPuzzleLimitS);
      }
    },
  );

  it('takes a definition as well, and says what is wrong with a bad one or a bad link', () => {
    const fromDef = clutrrTimeline(def, { plugin: ClutrrPlugin, sessionSeed: 's' });
    expect(fromDef).toEqual(clutrrTimeline(token, { plugin: ClutrrPlugin, sessionSeed: 's' }));
    expect(() => clutrrTimeline({ ...def, itemsPerK: -1 }, { plugin: ClutrrPlugin })).toThrow(/itemsPerK/);
    expect(() => clutrrTimeline('not a link', { plugin: ClutrrPlugin })).toThrow(
      /clutrrTimeline: This is not a study link/,
    );
  });
});

describe('plugin-clutrr parameters', () => {
  it('lists every parameter with a type and a default, and checks them with a message naming the bad one', () => {
    for (const [name, p] of Object.entries(ClutrrPlugin.info.parameters)) {
      expect(p, name).toHaveProperty('type');
      expect(p, name).toHaveProperty('default');
    }
    expect(Object.keys(ClutrrPlugin.info.parameters).sort()).toEqual(
      [
        'seed',
        'k',
        'task',
        'strict',
        'template_split',
        'story_order',
        'display',
        'time_limit',
        'ask_difficulty',
        'feedback',
        'phase',
        'puzzle_id',
      ].sort(),
    );
    expect(() => checkTrial({ seed: 1.5 })).toThrow(
      'plugin-clutrr: seed must be a whole number 0 to 4294967295 (got 1.5)',
    );
    expect(() => checkTrial({ seed: 1, k: 11 })).toThrow(/k must be a whole number 1 to 10/);
    expect(() => checkTrial({ seed: 1, display: 'video' })).toThrow(/display must be text \| text\+drawing/);
    expect(() => checkTrial({ seed: 1, time_limit: 0 })).toThrow(/time_limit/);
    expect(checkTrial({ seed: 7 })).toMatchObject({
      k: 2,
      task: 1,
      strict: true,
      ask_difficulty: true,
      puzzle_id: 'k2-t1-s7',
    });
  });

  it('the same seed gives the same puzzle; story order path keeps the chain order', () => {
    const spec = {
      seed: 99,
      k: 3,
      task: 1 as const,
      strict: true,
      templateSplit: 'all' as const,
      storyOrder: 'shuffled' as const,
      phase: 'main' as const,
      puzzleId: 'x',
    };
    expect(makeClutrrPuzzle(spec).content).toEqual(makeClutrrPuzzle(spec).content);
    const path = makeClutrrPuzzle({ ...spec, storyOrder: 'path' }).content;
    expect(path.gold).toBe(makeClutrrPuzzle(spec).content.gold);
  });
});
