import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { participants } from '../study/results/figures';
import { readResultsFile } from '../study/results/resultsFile';
import { createIrtCommand } from './resultsIrt';

const file = readResultsFile('results-a.csv', readFileSync('e2e/fixtures/results-a.csv', 'utf8'));
const people = participants(file.rows);
const merged = { key: '1', rows: file.rows, people };

describe('the results worker: irt', () => {
  it('fits the merge it holds, keeps the fit, and places respondents on its scale', () => {
    const irt = createIrtCommand(() => merged);
    const first = irt({ key: '1', model: 'rasch', excludeFlagged: false, respondents: [] });
    if (!first.ok) throw new Error(first.message);
    expect(first.report.persons.length).toBe(30);
    expect(first.placed).toEqual([]);
    const items = first.report.items.filter((i) => i.difficulty !== null);
    const allRight = items.map((i) => [i.id, true] as const);
    const halfRight = items.map((i, n) => [i.id, n % 2 === 0] as const);
    const second = irt({
      key: '1',
      model: 'rasch',
      excludeFlagged: false,
      respondents: [
        { id: 'top', label: 'Top model', answers: allRight },
        { id: 'mid', label: 'Mid model', answers: halfRight },
        { id: 'none', label: 'No answers', answers: [['unknown|1|2|1|true', true]] },
      ],
    });
    if (!second.ok) throw new Error(second.message);
    // The same fit object (not fitted again), two of the three placed, the better one higher.
    expect(second.report).toBe(first.report);
    expect(second.placed.map((p) => p.id)).toEqual(['top', 'mid']);
    expect(second.placed[0]!.percentile).toBeGreaterThan(second.placed[1]!.percentile);
    expect(second.placed[0]!.sentence).toMatch(/^Top model answers like a person at the \d+(st|nd|rd|th) percentile/);
  });

  it('leaves flagged participants out when asked, answers stale for another merge, and says why it cannot fit', () => {
    const irt = createIrtCommand(() => merged);
    const flagged = people.filter((p) => p.flags.length > 0).length;
    expect(flagged).toBeGreaterThan(0);
    const out = irt({ key: '1', model: '2pl', excludeFlagged: true, respondents: [] });
    expect(out.ok && out.report.persons.length).toBe(30 - flagged);
    expect(irt({ key: '2', model: 'rasch', excludeFlagged: false, respondents: [] })).toMatchObject({
      ok: false,
      stale: true,
    });
    expect(
      createIrtCommand(() => null)({ key: '1', model: 'rasch', excludeFlagged: false, respondents: [] }),
    ).toMatchObject({ ok: false, stale: true });
    const few = createIrtCommand(() => ({
      ...merged,
      rows: file.rows.filter((r) => r.session_id === file.rows[0]!.session_id),
    }));
    expect(few({ key: '1', model: 'rasch', excludeFlagged: false, respondents: [] })).toMatchObject({
      ok: false,
      stale: false,
      message: expect.stringMatching(/only 1 participant answered/),
    });
  });
});
