import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../core/formats/csv';
import type { ResultRow } from './results';
import { boundedMeanT, geometricMeanT, meanT, wilson } from './stats';
import {
  aggregate,
  answeredItems,
  answeredShown,
  FLAG_RULES,
  groupsShown,
  items,
  itemsShown,
  participants,
  participantsShown,
  RESUMED_CSV_COLUMNS,
  SCALE,
  tableToCsv,
  TABLE_CSV_COLUMNS,
  type GroupRow,
} from './figures';
import { withoutResumed } from './resumed';
import { NO_ESTIMATE } from './resultFields';

let trial = 0;
/** A main trial of session `s`; `over` changes fields. */
function row(s: string, over: Partial<ResultRow> = {}): ResultRow {
  return {
    study_id: 'st',
    session_id: s,
    participant_id: `p-${s}`,
    condition: 'untimed',
    trial_index: trial++,
    phase: 'main',
    puzzle_id: 'main-k2-t1-0',
    seed: 1,
    k: 2,
    task: 1,
    strict: false,
    query_a: 'A',
    query_b: 'B',
    gold: 'aunt',
    response: 'aunt',
    correct: true,
    difficulty: 2,
    rt_ms: 10_000,
    ended_on: 'response',
    time_limit_s: null,
    answer_changes: 0,
    hidden_ms: 0,
    resumed: false,
    started_at: '2026-01-01T00:00:00.000Z',
    answered_at: '2026-01-01T00:00:10.000Z',
    story: '',
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
    ...over,
  };
}

const wrong = { correct: false, response: 'uncle' } as const;
const timeout = { correct: false, response: '', ended_on: 'timeout', difficulty: null, rt_ms: 90_000 } as const;

const rows: ResultRow[] = [
  row('a', { phase: 'practice', correct: false }),
  row('a'),
  row('a', { ...wrong, rt_ms: 20_000, difficulty: 4 }),
  row('a', { k: 3, puzzle_id: 'main-k3-t1-0', rt_ms: 30_000 }),
  row('a', { phase: 'check', puzzle_id: 'check-0', ...wrong }),
  row('b', { rt_ms: 12_000, difficulty: 1 }),
  row('b', { ...timeout }),
  row('b', { k: 3, puzzle_id: 'main-k3-t1-0', ...wrong, response: 'niece' }),
  row('b', { phase: 'check', puzzle_id: 'check-0', hidden_ms: FLAG_RULES.hiddenMs }),
];

describe('aggregate', () => {
  it('counts main trials only, timeouts as wrong and without a time or rating', () => {
    const [k2, k3] = aggregate(rows, 'k');
    expect(k2!.key).toBe('2');
    expect([k2!.trials, k2!.participants, k2!.timeouts]).toEqual([4, 2, 1]);
    expect(k2!.accuracy.interval).toEqual(wilson(2, 4));
    expect(k2!.rt.n).toBe(3);
    // Response time: the geometric mean of 10, 20, 12 s with its interval from log time.
    const rt = geometricMeanT([10, 20, 12]);
    expect(k2!.rt.interval.estimate).toBeCloseTo(Math.cbrt(10 * 20 * 12), 9);
    expect(k2!.rt.interval.lo).toBeCloseTo(rt.lo, 9);
    expect(k2!.rt.interval.hi).toBeCloseTo(rt.hi, 9);
    // Difficulty on the 1–5 scale: the plain t interval of 2, 4, 1 would reach below 1.
    expect(k2!.difficulty.interval).toEqual(boundedMeanT([2, 4, 1], 1, 5));
    expect(meanT([2, 4, 1]).lo).toBeLessThan(1);
    expect(k2!.difficulty.interval.lo).toBeGreaterThanOrEqual(1);
    expect(k3!.accuracy.interval.estimate).toBe(0.5);
    expect(k2!.paper).toEqual({ accuracy: 0.848, difficulty: 1.49, difficultySd: 1.25 });
  });

  it('is the same every time (seeded bootstrap), and leaves out excluded sessions', () => {
    expect(aggregate(rows, 'k')).toEqual(aggregate(rows, 'k'));
    const onlyA = aggregate(rows, 'k', new Set(['b']));
    expect(onlyA[0]!.trials).toBe(2);
    // One participant: no clustered interval.
    expect(Number.isNaN(onlyA[0]!.accuracy.clustered.lo)).toBe(true);
  });

  it('groups by condition and k: conditions in order, k within, the paper by k', () => {
    const groups = aggregate(
      [...rows, row('c', { condition: 'timed', k: 3, puzzle_id: 'main-k3-t1-0' })],
      'condition-k',
    );
    expect(groups.map((g) => [g.key, g.band, g.series])).toEqual([
      ['timed k=3', '3', 'timed'],
      ['untimed k=2', '2', 'untimed'],
      ['untimed k=3', '3', 'untimed'],
    ]);
    expect(groups.map((g) => g.paper?.accuracy)).toEqual([0.773, 0.848, 0.773]);
    expect(groups[1]!.accuracy.interval).toEqual(wilson(2, 4));
  });

  it('groups by condition with no paper figures', () => {
    const groups = aggregate([...rows, row('c', { condition: 'timed' })], 'condition');
    expect(groups.map((g) => g.key)).toEqual(['timed', 'untimed']);
    expect(groups.every((g) => g.paper === null)).toBe(true);
  });
});

/** Every interval of a group inside its measure's scale, the estimate inside its intervals. */
function onScale(g: GroupRow): boolean {
  const ok = (f: GroupRow['rt'], [min, max]: readonly [number, number]) =>
    [f.interval, f.clustered].every(
      (i) =>
        Number.isNaN(i.lo) ||
        (i.lo >= min && i.hi <= max && i.lo <= i.estimate * (1 + 1e-9) && i.estimate <= i.hi * (1 + 1e-9)),
    );
  return ok(g.accuracy, SCALE.accuracy) && ok(g.rt, [Number.MIN_VALUE, Infinity]) && ok(g.difficulty, SCALE.difficulty);
}

describe('intervals on the scale', () => {
  it('property: for any trials, every interval of every grouping stays within its scale', () => {
    const trialArb = fc.record({
      s: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      k: fc.integer({ min: 2, max: 4 }),
      condition: fc.constantFrom('untimed', 'timed-30'),
      correct: fc.boolean(),
      timeout: fc.boolean(),
      difficulty: fc.integer({ min: 1, max: 5 }),
      rt_ms: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 600_000 })),
    });
    fc.assert(
      fc.property(fc.array(trialArb, { minLength: 1, maxLength: 80 }), (ts) => {
        const rs = ts.map((t) =>
          row(t.s, {
            k: t.k,
            condition: t.condition,
            ...(t.timeout ? timeout : { correct: t.correct, difficulty: t.difficulty, rt_ms: t.rt_ms }),
          }),
        );
        return (['k', 'condition', 'condition-k'] as const).every((by) => aggregate(rs, by).every(onScale));
      }),
      { numRuns: 60 },
    );
  });
});

describe('participants', () => {
  it('flags failed checks, many timeouts and long hidden time', () => {
    const [a, b] = participants(rows);
    expect(a).toMatchObject({
      session_id: 'a',
      mainTrials: 3,
      correct: 2,
      checks: 1,
      checksFailed: 1,
      flags: ['checks'],
    });
    // b: 1 timeout in 4 non-practice trials = 0.25, and the hidden limit reached exactly.
    expect(b).toMatchObject({ timeouts: 1, timeoutShare: 0.25, hiddenMs: 60_000, flags: ['timeouts', 'hidden'] });
    // Answered main trials of b: 12 s and 10 s (the timeout has no time).
    expect(b!.medianRt).toBe(11);
  });
});

describe('items', () => {
  it('one line per puzzle, main before checks, hardest first within k, the common wrong answer', () => {
    const list = items(rows);
    expect(list.map((i) => i.puzzle_id)).toEqual(['main-k2-t1-0', 'main-k3-t1-0', 'check-0']);
    expect(list[0]!.n).toBe(4);
    expect(list[0]!.commonError).toEqual({ word: 'uncle', count: 1 });
    expect(list[1]!.commonError).toEqual({ word: 'niece', count: 1 });
  });
});

describe('tableToCsv', () => {
  it('writes the columns, the figures as shown, and escapes formula-like groups', () => {
    const groups = aggregate([row('x', { condition: '=cmd' }), row('y', { condition: '=cmd', ...wrong })], 'condition');
    const [header, line] = parseCsv(tableToCsv(groups, 'condition'));
    expect(header).toEqual([...TABLE_CSV_COLUMNS]);
    const cell = (c: (typeof TABLE_CSV_COLUMNS)[number]) => line![TABLE_CSV_COLUMNS.indexOf(c)];
    expect(cell('group')).toBe("'=cmd");
    expect(cell('accuracy')).toBe('0.5000');
    expect(cell('accuracy_lo')).toBe(wilson(1, 2).lo.toFixed(4));
    expect(cell('paper_accuracy')).toBe('');
  });
});

describe('resumed trials', () => {
  // The rows above with a few resumed: a's wrong 20 s k = 2 answer, b's k = 3 answer (the only
  // main k = 3 trial of b), a's check, and a's practice (never in a figure).
  const resumedAt = new Set([0, 2, 4, 7]);
  const withResumed = rows.map((r, i) => (resumedAt.has(i) ? { ...r, resumed: true } : r));
  const kept = withoutResumed(withResumed);
  /** A group's figures without its place, counts and the resumed parts: what leaving them out changes. */
  const figuresOf = (g: GroupRow) => ({
    key: g.key,
    participants: g.participants,
    trials: g.trials,
    timeouts: g.timeouts,
    accuracy: g.accuracy,
    rt: g.rt,
    difficulty: g.difficulty,
  });

  it('include: the figures and the export are those of the same rows unmarked', () => {
    for (const by of ['k', 'task', 'condition', 'condition-k'] as const) {
      const marked = aggregate(withResumed, by);
      const plain = aggregate(rows, by);
      expect(marked.map(figuresOf)).toEqual(plain.map(figuresOf));
      expect(groupsShown(marked, 'include')).toBe(marked);
      expect(tableToCsv(groupsShown(marked, 'include'), by, 'include')).toBe(tableToCsv(plain, by));
      expect(tableToCsv(marked, by)).toBe(tableToCsv(plain, by));
    }
  });

  it('counts the resumed trials each figure holds', () => {
    const [k2, k3] = aggregate(withResumed, 'k');
    expect(k2!.resumed).toEqual({ trials: 1, rt: 1, difficulty: 1 });
    expect(k3!.resumed).toEqual({ trials: 1, rt: 1, difficulty: 1 });
    expect(aggregate(rows, 'k').every((g) => g.resumed.trials === 0 && g.withoutResumed === null)).toBe(true);
  });

  it('omit: every figure is the one of the rows without the resumed trials, seeds and all', () => {
    for (const by of ['k', 'task', 'condition', 'condition-k'] as const) {
      const shown = groupsShown(aggregate(withResumed, by), 'omit');
      expect(shown.map(figuresOf)).toEqual(aggregate(kept, by).map(figuresOf));
    }
    const [k2, k3] = groupsShown(aggregate(withResumed, 'k'), 'omit');
    expect(k2!.accuracy.interval).toEqual(wilson(2, 3));
    expect(k2!.resumed.trials).toBe(1); // the ones left out
    expect([k3!.trials, k3!.participants]).toEqual([1, 1]);
  });

  it('omit: a group of resumed trials only is not shown', () => {
    const groups = aggregate([...rows, row('c', { condition: 'lost', resumed: true })], 'condition');
    expect(groups.map((g) => g.key)).toEqual(['lost', 'untimed']);
    expect(groupsShown(groups, 'omit').map((g) => g.key)).toEqual(['untimed']);
  });

  it('the export adds how many each figure holds (mark) or how many were left out (omit)', () => {
    const groups = aggregate(withResumed, 'k');
    const [header, k2] = parseCsv(tableToCsv(groups, 'k', 'mark'));
    expect(header).toEqual([...TABLE_CSV_COLUMNS, ...RESUMED_CSV_COLUMNS.mark]);
    expect(k2!.slice(-3)).toEqual(['1', '1', '1']);
    const [oh, ok2] = parseCsv(tableToCsv(groupsShown(groups, 'omit'), 'k', 'omit'));
    expect(oh).toEqual([...TABLE_CSV_COLUMNS, 'resumed_left_out']);
    expect(ok2![oh!.indexOf('trials')]).toBe('3');
    expect(ok2!.at(-1)).toBe('1');
  });

  it('items: counts per puzzle; omit shows the items of the rows without them, in their order', () => {
    const list = items(withResumed);
    expect(list.map((i) => [i.puzzle_id, i.resumed])).toEqual([
      ['main-k2-t1-0', 1],
      ['main-k3-t1-0', 1],
      ['check-0', 1],
    ]);
    expect(itemsShown(list, 'mark')).toBe(list);
    const strip = ({ resumed: _r, withoutResumed: _w, ...rest }: ReturnType<typeof items>[number]) => rest;
    expect(itemsShown(list, 'omit').map(strip)).toEqual(items(kept).map(strip));
  });

  it('participants: omit changes the main-trial figures, never the flags', () => {
    const people = participants(withResumed);
    expect(people.map((p) => p.resumed)).toEqual([2, 1]);
    const shown = participantsShown(people, 'omit');
    const plain = participants(kept);
    for (const [i, p] of shown.entries()) {
      expect(p).toMatchObject({
        mainTrials: plain[i]!.mainTrials,
        correct: plain[i]!.correct,
        medianRt: plain[i]!.medianRt,
        meanDifficulty: plain[i]!.meanDifficulty,
      });
      expect(p.flags).toEqual(people[i]!.flags);
    }
    // a's failed check was resumed: still flagged.
    expect(shown[0]!.flags).toEqual(['checks']);
    expect(participantsShown(people, 'include')).toBe(people);
  });

  it("answered items: omit takes the resumed answers out of people's counts", () => {
    const list = answeredItems(withResumed);
    const plain = answeredItems(kept);
    expect(answeredShown(list, 'omit').map((i) => [i.key, i.answers, i.correct])).toEqual(
      plain.map((i) => [i.key, i.answers, i.correct]),
    );
    expect(answeredShown(list, 'include')).toBe(list);
  });
});
