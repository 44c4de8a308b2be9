import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../src/study/definition/definition';
import { encodeStudyLink } from '../../src/study/definition/link';
import { MAX_LINK_LENGTH } from '../../src/study/delivery/route';
import { StudyAccess } from '../../server/sessions';
import { ResultStore } from '../../server/store';
import { tempDirs } from '../../server/testServer';
import { main } from '../main';
import { captureOutput } from '../testOutput';

const io = captureOutput();
const tempDir = tempDirs('clutrr-state-');
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;

function withStudy(): string {
  const data = tempDir();
  const store = ResultStore.open(path.join(data, 'results.sqlite'));
  new StudyAccess(store).register({ token: encodeStudyLink(withDefaults({ studyId: 'lab' })) }, 'browser');
  store.close();
  return data;
}

const stateIn = (data: string) => {
  const store = ResultStore.open(path.join(data, 'results.sqlite'));
  try {
    return new StudyAccess(store).state('lab');
  } finally {
    store.close();
  }
};

describe('study close|open', () => {
  it('closes and opens a registered study, sets its quota and session mode; the last line says its state', async () => {
    const data = withStudy();
    expect(await main(['study', 'close', '--data', data, '--study-id', 'lab'])).toBe(0);
    expect(lastLine(io.out)).toBe(
      'study lab: closed; 0 sessions issued; no quota; sessions: issued or made by the browser',
    );
    expect(stateIn(data)).toMatchObject({ closed: true });
    io.out = '';
    expect(
      await main(['study', 'open', '--data', data, '--study-id', 'lab', '--max-sessions', '40', '--issued-only']),
    ).toBe(0);
    expect(lastLine(io.out)).toBe('study lab: open; 0 sessions issued; quota 40; sessions: issued only');
    expect(stateIn(data)).toMatchObject({ closed: false, max_sessions: 40, sessions: 'issued' });
    io.out = '';
    expect(await main(['study', 'open', '--data', data, '--study-id', 'lab', '--max-sessions', 'none'])).toBe(0);
    expect(stateIn(data)).toMatchObject({ max_sessions: null, sessions: 'issued' });
  });

  it('refuses what it cannot do, naming the flag', async () => {
    const data = withStudy();
    const refused = async (...argv: string[]) => {
      io.err = '';
      const code = await main(argv);
      return { code, err: io.err.trim() };
    };
    expect(await refused('study', 'close', '--study-id', 'lab')).toEqual({
      code: 2,
      err: expect.stringMatching(/--data <folder> is needed/),
    });
    expect((await refused('study', 'close', '--data', data)).err).toMatch(/--study-id <id> is needed/);
    expect(await refused('study', 'close', '--data', data, '--study-id', 'nope')).toEqual({
      code: 1,
      err: expect.stringMatching(/^clutrr study: study-id: no study "nope" is registered here/),
    });
    expect((await refused('study', 'open', '--data', data, '--study-id', 'lab', '--max-sessions', '-1')).err).toMatch(
      /--max-sessions must be a whole number or "none"/,
    );
    expect(
      (await refused('study', 'open', '--data', data, '--study-id', 'lab', '--issued-only', '--browser-sessions')).err,
    ).toMatch(/not both/);
    expect((await refused('study', 'open', '--data', path.join(data, 'none'), '--study-id', 'lab')).code).toBe(1);
  });
});

describe('study link: short links and too-long links', () => {
  // Random-looking text does not deflate: its full link is over the limit (about 6,800 characters).
  let long = '';
  let x = 12345;
  for (let i = 0; i < 9000; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    long += String.fromCharCode(97 + (x % 26));
  }

  it('without a results server, refuses a link longer than the limit with a message', async () => {
    io.err = '';
    expect(await main(['study', 'link', '--consent', long, '--jatos'])).toBe(2);
    expect(io.err).toMatch(
      new RegExp(`^clutrr study: link: the participant link is \\d+ characters long, more than the ${MAX_LINK_LENGTH}`),
    );
    expect(io.err).toMatch(/--sink server --data DIR/);
  });

  it('with --sink server --data, a long study gets only the short link, at most 100 characters', async () => {
    const data = tempDir();
    const id = 'a-study-with-a-long-id-'.padEnd(64, 'z');
    expect(await main(['study', 'link', '--study-id', id, '--consent', long, '--sink', 'server', '--data', data])).toBe(
      0,
    );
    const last = lastLine(io.out);
    expect(last).toBe(`?s=${id}`);
    expect(last.length).toBeLessThanOrEqual(100);
    expect(io.out).not.toContain('full link:');
    expect(io.out).toMatch(/link: \d{4,} characters/);
  });
});
