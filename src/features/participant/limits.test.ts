import { describe, expect, it } from 'vitest';
import { durationWords, limitSentences } from './limits';

describe('limitSentences', () => {
  it('says nothing for an untimed condition', () => {
    expect(limitSentences({ perPuzzleLimitS: null, overallLimitS: null }, 'solve', true)).toEqual([]);
  });
  it('states the time per puzzle and for all of them, practice left out', () => {
    expect(limitSentences({ perPuzzleLimitS: 60, overallLimitS: null }, 'solve', false)).toEqual([
      'You have 60 seconds for each puzzle.',
      'When the time for a puzzle is up, it is recorded without an answer and the next one shows.',
      'The time left shows at the bottom of the screen.',
    ]);
    const both = limitSentences({ perPuzzleLimitS: 30, overallLimitS: 600 }, 'paraphrase', true);
    expect(both.slice(0, 2)).toEqual([
      'You have 30 seconds for each story.',
      'You have 10 minutes for all the stories together (the practice stories not counted).',
    ]);
    expect(both).toHaveLength(5);
    expect(limitSentences({ perPuzzleLimitS: null, overallLimitS: 120 }, 'review', false)[0]).toBe(
      'You have 2 minutes for all the reviews together.',
    );
  });
  it('words durations as a person would', () => {
    expect([1, 45, 60, 90, 120, 150, 3600].map(durationWords)).toEqual([
      '1 second',
      '45 seconds',
      '60 seconds',
      '90 seconds',
      '2 minutes',
      '2 minutes 30 seconds',
      '60 minutes',
    ]);
  });
});
