import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../core/random/rng';
import { correlation, IrtError } from './irt';
import { irtMatrix, irtReport, isSolveRow, ordinal, placeRespondent } from './irtRows';
import { rowsToCsv, rowsToJson, type ResultRow } from './results';
import { readResultsFile } from './resultsFile';
import { NO_ESTIMATE } from './resultFields';

function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

function row(session: string, trial: number, over: Partial<ResultRow>): ResultRow {
  return {
    study_id: 'irt',
    session_id: session,
    participant_id: `P-${session}`,
    condition: 'untimed',
    trial_index: trial,
    phase: 'main',
    puzzle_id: `item-${trial}`,
    seed: 500 + trial,
    k: 2 + (trial % 5),
    task: 1,
    strict: true,
    query_a: 'Anna',
    query_b: 'Ben',
    gold: 'nephew',
    response: 'nephew',
    correct: true,
    difficulty: null,
    rt_ms: 5000,
    ended_on: 'response',
    time_limit_s: null,
    answer_changes: 0,
    hidden_ms: 0,
    resumed: false,
    started_at: '2026-11-26T07:00:00.000Z',
    answered_at: '2026-11-26T07:01:00.000Z',
    story: 'Anna is Ben’s aunt.',
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
    ...over,
  };
}

/** A Rasch study as result rows: `persons` × `items` main trials (difficulty rising with k), plus a practice and a check. */
function raschRows(persons: number, items: number, seed: string) {
  const rng = createRng(seed);
  const theta = Array.from({ length: persons }, () => 1.5 * normal(rng));
  const b = Array.from({ length: items }, (_, j) => -2 + (4 * j) / (items - 1));
  const rows: ResultRow[] = [];
  for (let p = 0; p < persons; p++) {
    const s = `s${String(p).padStart(3, '0')}`;
    rows.push(row(s, 0, { phase: 'practice', puzzle_id: 'practice-1', correct: false }));
    for (let j = 0; j < items; j++) {
      const correct = rng.chance(1 / (1 + Math.exp(-(theta[p]! - b[j]!))));
      // Ratings follow difficulty, noisily, from 1 to 5.
      const rating = Math.max(1, Math.min(5, Math.round(3 + b[j]! + normal(rng))));
      rows.push(
        row(s, j + 1, {
          puzzle_id: `item-${String(j).padStart(2, '0')}`,
          seed: 500 + j,
          k: 2 + Math.floor(j / 4),
          correct,
          response: correct ? 'nephew' : 'uncle',
          difficulty: rating,
        }),
      );
    }
    rows.push(row(s, items + 1, { phase: 'check', puzzle_id: 'check-1', correct: p % 2 === 0 }));
  }
  return { rows, theta, b };
}

describe('irtReport over result rows', () => {
  it('reads our own export format (CSV and JSON) and recovers a Rasch study: ≥ .9 both ways, reliability within .05', () => {
    const { rows, theta, b } = raschRows(200, 20, 'irt-rows');
    for (const [name, text] of [
      ['study.csv', rowsToCsv(rows)],
      ['study.json', rowsToJson(rows)],
    ] as const) {
      const file = readResultsFile(name, text);
      const report = irtReport(file.rows, 'rasch');
      expect(report.rows).toBe(200 * 20);
      expect(report.persons.map((p) => p.id)).toEqual(
        rows.filter((r) => r.trial_index === 1).map((r) => r.participant_id),
      );
      expect(report.items.map((i) => i.puzzle_id)).toEqual(b.map((_, j) => `item-${String(j).padStart(2, '0')}`));
      expect(report.items.map((i) => i.k)).toEqual(b.map((_, j) => 2 + Math.floor(j / 4)));
      const eap = report.persons.map((p) => p.ability);
      expect(correlation(theta, eap)).toBeGreaterThanOrEqual(0.9);
      expect(
        correlation(
          b,
          report.items.map((i) => i.difficulty!),
        ),
      ).toBeGreaterThanOrEqual(0.9);
      expect(Math.abs(report.reliability - correlation(theta, eap) ** 2)).toBeLessThan(0.05);
      expect(report.ratingCorrelation!.items).toBe(20);
      expect(report.ratingCorrelation!.r).toBeGreaterThan(0.8);
    }
  });

  it('leaves out practice, checks and collection rows, counts a timeout wrong, and a repeated item once', () => {
    const rows = [
      row('a', 0, { phase: 'practice' }),
      row('a', 1, { phase: 'check' }),
      row('a', 2, { puzzle_id: 'c1.2.x', correct: true }),
      row('a', 3, { puzzle_id: 'a/2', response: 'good' }),
      row('a', 4, { puzzle_id: 'x', response: 'bad:names' }),
      row('a', 5, { puzzle_id: 'p1', correct: false, ended_on: 'timeout', response: '' }),
      row('b', 5, { participant_id: 'P-a', puzzle_id: 'p1', correct: true }),
      row('c', 5, { puzzle_id: 'p1', correct: true }),
    ];
    expect(rows.map(isSolveRow)).toEqual([false, false, false, false, false, true, true, true]);
    const m = irtMatrix(rows);
    expect(m.data.persons).toEqual(['P-a', 'P-c']);
    expect([...m.data.responses]).toEqual([0, 1]);
  });

  it('says why it cannot fit: no solve rows, too few participants', () => {
    expect(() => irtReport([row('a', 0, { phase: 'practice' })], 'rasch')).toThrow(/no solve rows/);
    const two = raschRows(2, 5, 'two').rows;
    expect(() => irtReport(two, 'rasch')).toThrow(IrtError);
  });

  it("places a respondent on the study's scale with a sentence", () => {
    const { rows } = raschRows(150, 12, 'place');
    const report = irtReport(rows, 'rasch');
    const easyOnly = new Map(report.items.map((i, j) => [i.id, j < 6]));
    const placed = placeRespondent(report, 'm', 'BiLSTM-mean', easyOnly)!;
    expect(placed.sentence).toMatch(/^BiLSTM-mean answers like a person at the \d+(st|nd|rd|th) percentile \(ability/);
    expect(placed.correct).toBe(6);
    expect(placed.percentile).toBeGreaterThan(10);
    expect(placed.percentile).toBeLessThan(90);
    expect(placeRespondent(report, 'm', 'none', new Map())).toBeNull();
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 99].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '99th',
    ]);
  });

  it('fits the dashboard fixture (e2e/fixtures/results-a.csv) with both models', () => {
    const file = readResultsFile('results-a.csv', readFileSync('e2e/fixtures/results-a.csv', 'utf8'));
    for (const model of ['rasch', '2pl'] as const) {
      const report = irtReport(file.rows, model);
      expect(report.persons.length).toBe(30);
      expect(report.items.every((i) => i.flag !== null || Number.isFinite(i.difficulty!))).toBe(true);
      expect(report.reliability).toBeGreaterThan(0);
      expect(report.reliability).toBeLessThan(1);
    }
  });
});
