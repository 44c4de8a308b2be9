import { describe, expect, it } from 'vitest';
import { DEFAULT_CONDITION, DEFAULT_STUDY, withDefaults, type StudyCondition } from './definition';
import { conditionArgs, optionArgs, readConditionArg } from './commandLine';
import { optionDefault, optionFits, STUDY_OPTION_FIELDS, STUDY_OPTIONS, type StudyOptionField } from './studyOptions';

describe('the study options table', () => {
  it('declares every setting but the version, the conditions and the sinks, each with its own flag', () => {
    expect(new Set(STUDY_OPTION_FIELDS)).toEqual(
      new Set(Object.keys(DEFAULT_STUDY).filter((k) => !['version', 'conditions', 'sinks'].includes(k))),
    );
    const flags = STUDY_OPTION_FIELDS.map((f) => STUDY_OPTIONS[f].flag);
    expect(new Set(flags).size).toBe(flags.length);
    for (const f of STUDY_OPTION_FIELDS) {
      expect(STUDY_OPTIONS[f].label).not.toBe('');
      expect(STUDY_OPTIONS[f].help).not.toMatch(/issue \d/i);
    }
  });

  it('reads back what it writes, for the defaults and for other values', () => {
    const other = withDefaults({
      studyId: 'pilot_2',
      seed: 4294967295,
      k: [3, 5],
      tasks: [2, 7],
      itemsPerK: 9,
      order: { mode: 'counterbalanced', lists: 3 },
      consentText: '  Indented **markdown**\nkept as typed.  ',
      redirectUrl: 'https://example.org/done?cc=X',
    });
    for (const def of [DEFAULT_STUDY, other]) {
      for (const f of STUDY_OPTION_FIELDS.filter((x): x is Exclude<StudyOptionField, 'strict'> => x !== 'strict')) {
        const o = STUDY_OPTIONS[f];
        expect(o.read(o.write(def[f] as never)), f).toEqual(def[f]);
      }
    }
  });

  it('reads a number the way both the CLI and the designer do: text that is not a number is NaN, named by the check', () => {
    expect(STUDY_OPTIONS.seed.read('0x10')).toBeNaN();
    expect(STUDY_OPTIONS.seed.read('')).toBeNaN();
    expect(STUDY_OPTIONS.k.read('2, x')).toEqual([2, NaN]);
    expect(STUDY_OPTIONS.order.read('counterbalanced:')).toEqual({ mode: 'counterbalanced', lists: NaN });
    expect(STUDY_OPTIONS.order.read('random')).toEqual({ mode: 'random' });
  });

  it('writes the CLI words of the settings that differ from the defaults (k, per-k and seed always)', () => {
    expect(optionArgs(DEFAULT_STUDY)).toEqual(['--seed', '1', '--k', '2,3,4', '--per-k', '5']);
    expect(
      optionArgs(withDefaults({ strict: false, completionCode: 'C0DE', order: { mode: 'counterbalanced', lists: 2 } })),
    ).toEqual([
      ...['--seed', '1', '--k', '2,3,4', '--per-k', '5', '--no-strict', '--order', 'counterbalanced:2'],
      ...['--completion-code', 'C0DE'],
    ]);
  });
});

describe('the study kinds in the table', () => {
  it("writes a collection study's kind and its own settings, never another kind's", () => {
    expect(optionArgs(withDefaults({ kind: 'paraphrase' }))).toEqual([
      ...['--kind', 'paraphrase', '--seed', '1', '--clause-k', '1,2,3', '--clauses-per-participant', '3'],
    ]);
    expect(
      optionArgs(
        withDefaults({ kind: 'paraphrase', favourUncovered: true, maxWords: 80, sinks: [{ kind: 'server' }] }),
      ),
    ).toEqual([
      ...['--kind', 'paraphrase', '--seed', '1', '--clause-k', '1,2,3', '--clauses-per-participant', '3'],
      ...['--favour-uncovered', '--max-words', '80'],
    ]);
    const stories = [{ id: 'a/1', clause: 'c1.son.female-male', seed: 2, story: 'Cy is the son of Di.' }];
    expect(
      optionArgs(withDefaults({ kind: 'review', studyId: 'rev', reviewsPerParticipant: 1, reviewStories: stories })),
    ).toEqual([
      ...['--kind', 'review', '--study-id', 'rev', '--seed', '1', '--reviews-per-participant', '1'],
      ...['--stories', 'rev.stories.json'],
    ]);
  });

  it('knows which kinds each setting belongs to, and the defaults of each kind', () => {
    expect(STUDY_OPTION_FIELDS.filter((f) => !optionFits(f, 'paraphrase'))).toEqual([
      ...['k', 'tasks', 'itemsPerK', 'strict', 'templateSplit', 'practice', 'attentionChecks', 'order'],
      ...['reviewsPerStory', 'reviewsPerParticipant', 'sourceStudy', 'reviewStories'],
      ...['adaptive', 'adaptiveTrials', 'ciWidth', 'showEstimate'],
    ]);
    // An adaptive study shares the puzzles' settings with puzzle solving, and moves over k = 2..10 by default.
    expect(STUDY_OPTION_FIELDS.filter((f) => optionFits(f, 'adaptive') && !optionFits(f, 'paraphrase'))).toEqual([
      ...['k', 'tasks', 'strict', 'templateSplit', 'practice', 'adaptive', 'adaptiveTrials', 'ciWidth', 'showEstimate'],
    ]);
    expect(optionDefault('k', 'adaptive')).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(optionDefault('k', 'solve')).toEqual([2, 3, 4]);
    expect(optionDefault('consentText', 'solve')).toBe(STUDY_OPTIONS.consentText.default);
    expect(optionDefault('consentText', 'review')).toMatch(/^This study asks you to read short stories/);
    expect(optionDefault('clausesPerParticipant', 'review')).toBe(3);
  });
});

describe('conditions on the command line', () => {
  const timed: StudyCondition = { ...DEFAULT_CONDITION, id: 'timed', perPuzzleLimitS: 60 };
  it('uses the single-condition flags when they describe the one condition, else --condition per condition', () => {
    expect(conditionArgs([DEFAULT_CONDITION], DEFAULT_CONDITION)).toEqual([]);
    expect(conditionArgs([timed], DEFAULT_CONDITION)).toEqual(['--time-limit', '60']);
    const two: StudyCondition[] = [
      { ...timed, id: 'fast' },
      { id: 'drawn', perPuzzleLimitS: null, overallLimitS: 600, display: 'text+drawing', scratchpad: true },
    ];
    const args = conditionArgs(two, DEFAULT_CONDITION);
    expect(args).toEqual([
      '--condition',
      'fast,limit=60',
      '--condition',
      'drawn,overall=600,display=text+drawing,scratchpad',
    ]);
    expect([args[1]!, args[3]!].map((a) => readConditionArg(a, DEFAULT_CONDITION))).toEqual(two);
  });

  it('names a part that is not a condition setting', () => {
    expect(readConditionArg('a,speed=3', DEFAULT_CONDITION)).toEqual({
      problem: '"speed=3" is not a condition setting (limit=S, overall=S, display=text|text+drawing, scratchpad)',
    });
  });
});
