import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCsv as readCsv } from '../src/core/formats/csv';
import { createRng } from '../src/core/random/rng';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { rowsToCsv, rowsToJson, type ResultRow } from '../src/study/results/results';
import { ResultStore } from '../server/store';
import { makeRow, makeSession } from '../server/testServer';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'clutrr-irt-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const lastLine = (s: string) => s.trimEnd().split('\n').at(-1);
const LAST = /^participants=\d+ items=\d+ reliability=\d\.\d{3}$/;

/** `persons` people answering `items` puzzles (k = 2..6) from a Rasch model, in our export format. */
function studyRows(persons: number, items: number, seed: string): ResultRow[] {
  const rng = createRng(seed);
  const rows: ResultRow[] = [];
  for (let p = 0; p < persons; p++) {
    const ability = 3 * (rng.next() - 0.5);
    const session = `s${p}`;
    rows.push(makeRow('irt', session, 0));
    for (let j = 0; j < items; j++) {
      const b = -1.5 + (3 * j) / (items - 1);
      const correct = rng.chance(1 / (1 + Math.exp(-(ability - b))));
      rows.push(
        makeRow('irt', session, j + 1, {
          puzzle_id: `pz-${j}`,
          seed: 100 + j,
          k: 2 + (j % 5),
          task: 1,
          correct,
          ended_on: 'response',
          response: correct ? 'nephew' : 'uncle',
          difficulty: 1 + (j % 5),
        }),
      );
    }
  }
  return rows;
}

describe('results irt', () => {
  it('fits the Rasch model to CSV and JSON exports and writes items.csv and participants.csv into a new folder', async () => {
    const dir = tmp();
    const rows = studyRows(60, 10, 'cli-irt');
    // Two files, a CSV and a JSON, each with half the sessions.
    const half = rows.filter((r) => Number(r.session_id.slice(1)) < 30);
    const rest = rows.filter((r) => Number(r.session_id.slice(1)) >= 30);
    writeFileSync(path.join(dir, 'a.csv'), rowsToCsv(half));
    writeFileSync(path.join(dir, 'b.json'), rowsToJson(rest));
    const out = path.join(dir, 'new', 'irt');
    expect(await main(['results', 'irt', path.join(dir, 'a.csv'), path.join(dir, 'b.json'), '--out', out])).toBe(0);
    expect(lastLine(io.out)).toMatch(LAST);
    expect(lastLine(io.out)).toMatch(/^participants=60 items=10 reliability=0\.\d{3}$/);
    expect(io.out).toContain(`created the folder ${out}`);
    expect(io.out).toMatch(/marginal maximum likelihood, EM/);
    expect(io.out).toMatch(/EAP/);
    const items = readCsv(readFileSync(path.join(out, 'items.csv'), 'utf8'));
    expect(items[0]).toEqual(['puzzle_id', 'k', 'task', 'difficulty', 'discrimination', 'se', 'infit', 'outfit']);
    expect(items.length).toBe(11);
    // By k, then id; difficulty rises with the simulated b (pz-0 easiest, pz-9 hardest).
    const byId = new Map(items.slice(1).map((r) => [r[0]!, r]));
    expect(Number(byId.get('pz-0')![3])).toBeLessThan(Number(byId.get('pz-9')![3]));
    expect(items.slice(1).every((r) => r[4] === '1.0000' && Number(r[5]) > 0 && Number(r[6]) > 0)).toBe(true);
    const people = readCsv(readFileSync(path.join(out, 'participants.csv'), 'utf8'));
    expect(people[0]).toEqual(['participant_id', 'ability', 'se']);
    expect(people.length).toBe(61);
    expect(people[1]![0]).toBe('P-s0');

    // Again: refused without --force, replaced with it; 2PL gives discriminations.
    io.out = '';
    await expect(main(['results', 'irt', path.join(dir, 'a.csv'), '--out', out])).resolves.not.toBe(0);
    io.out = '';
    expect(
      await main([
        'results',
        'irt',
        path.join(dir, 'a.csv'),
        path.join(dir, 'b.json'),
        '--model',
        '2pl',
        '--out',
        out,
        '--force',
      ]),
    ).toBe(0);
    expect(lastLine(io.out)).toMatch(LAST);
    const twoPl = readCsv(readFileSync(path.join(out, 'items.csv'), 'utf8'));
    expect(twoPl.slice(1).some((r) => r[4] !== '1.0000')).toBe(true);
  });

  it('flags an item everyone got right instead of failing, and prints without --out', async () => {
    const dir = tmp();
    const rows = studyRows(40, 6, 'cli-flag').map((r) => (r.puzzle_id === 'pz-0' ? { ...r, correct: true } : r));
    writeFileSync(path.join(dir, 'r.csv'), rowsToCsv(rows));
    expect(await main(['results', 'irt', path.join(dir, 'r.csv')])).toBe(0);
    expect(io.out).toMatch(/pz-0 .*\(all-correct: 40\/40 right, not fitted\)/);
    expect(io.out).toMatch(/flagged: 1 item/);
    expect(lastLine(io.out)).toMatch(/^participants=40 items=6 reliability=/);
  });

  it('says clearly when a file has no solve rows, too few participants, or a model it does not know', async () => {
    const dir = tmp();
    const practice = [makeRow('irt', 's1', 0), makeRow('irt', 's2', 0)];
    writeFileSync(path.join(dir, 'practice.csv'), rowsToCsv(practice));
    expect(await main(['results', 'irt', path.join(dir, 'practice.csv')])).toBe(1);
    expect(io.err).toMatch(/practice\.csv: no solve rows/);
    io.err = '';
    writeFileSync(path.join(dir, 'two.csv'), rowsToCsv(studyRows(2, 6, 'two')));
    expect(await main(['results', 'irt', path.join(dir, 'two.csv')])).toBe(1);
    expect(io.err).toMatch(/two\.csv: only 2 participants answered; the model needs at least 3/);
    io.err = '';
    expect(await main(['results', 'irt', path.join(dir, 'two.csv'), '--model', '3pl'])).toBe(2);
    expect(io.err).toMatch(/--model must be rasch or 2pl \(got "3pl"\)/);
    io.err = '';
    expect(await main(['results', 'irt'])).toBe(2);
    expect(io.err).toMatch(/name at least one result file/);
    io.err = '';
    expect(await main(['results', 'irt', path.join(dir, 'missing.csv')])).toBe(1);
    expect(io.err).toMatch(/missing\.csv: no such file/);
  });
});

describe('results export --out into a folder that does not exist (issue 33)', () => {
  it('makes the folder, says so, and writes the export', async () => {
    const data = tmp();
    const store = ResultStore.open(path.join(data, 'results.sqlite'));
    store.registerStudy({ token: encodeStudyLink(withDefaults({ studyId: 'reg', seed: 3 })) });
    store.ingest({ sessions: [makeSession('reg', 's1')], rows: [makeRow('reg', 's1', 0), makeRow('reg', 's1', 1)] });
    store.close();
    const folder = path.join(tmp(), 'not', 'yet');
    const out = path.join(folder, 'rows.csv');
    expect(await main(['results', 'export', '--data', data, '--out', out])).toBe(0);
    expect(io.out).toContain(`created the folder ${folder}\n`);
    expect(lastLine(io.out)).toBe('sessions=1 rows=2');
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toMatch(/^study_id,session_id,/);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    // A folder that exists is not announced; a file in the folder's place is refused by name.
    io.out = '';
    expect(await main(['results', 'export', '--data', data, '--out', path.join(folder, 'rows.json')])).toBe(0);
    expect(io.out).not.toContain('created the folder');
    io.err = '';
    expect(await main(['results', 'export', '--data', data, '--out', path.join(out, 'x.csv')])).toBe(1);
    expect(io.err).toContain(`out: ${out} is a file, not a folder`);
    expect(existsSync(path.join(out, 'x.csv'))).toBe(false);
  });
});
