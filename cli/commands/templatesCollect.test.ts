import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResultStore } from '../../server/store';
import { parseClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { parseTemplateJson } from '../../src/core/text/templateFile';
import { clauseCells, clauseFromId, factSentences } from '../../src/study/collect/clause';
import { bad, GOOD, reviewRow, storyRow } from '../../src/study/collect/testRows';
import { withDefaults } from '../../src/study/definition/definition';
import { encodeStudyLink } from '../../src/study/definition/link';
import { rowsToCsv, rowsToJson, type ResultRow } from '../../src/study/results/results';
import { main } from '../main';
import { captureOutput } from '../testOutput';

const io = captureOutput();
const tmp = () => mkdtempSync(path.join(tmpdir(), 'clutrr-collect-'));
const LAST = /^paraphrases=\d+ accepted=\d+ templates=\d+$/;
const lastLine = () => io.out.trimEnd().split('\n').at(-1);

/** The marker sentence each writer adds after the facts, so their templates can be told apart. */
const MARKS = ['They waved from the old lighthouse.', 'Both of them laughed at the gulls.'];

/**
 * Two writers each write a story for every single-fact clause (the facts as shown and their own
 * sentence); three reviewers pass every story but one, which one of them calls ungrammatical.
 */
function collection(): { stories: ResultRow[]; reviews: ResultRow[] } {
  const stories = MARKS.flatMap((mark, w) =>
    clauseCells([1]).map((cell, i) => {
      const c = clauseFromId(cell.id, 1000 * (w + 1) + i);
      if ('error' in c) throw new Error(c.error);
      return storyRow(`writer-${w}`, i, c, `${factSentences(c)[0]} ${mark}`);
    }),
  );
  return { stories, reviews: reviewsOf(stories) };
}

const reviewsOf = (stories: readonly ResultRow[]) =>
  stories.flatMap((s, i) =>
    ['r1', 'r2', 'r3'].map((r) => reviewRow(r, i, s, i === 0 && r === 'r3' ? bad('ungrammatical') : GOOD)),
  );

function files(dir: string) {
  const { stories, reviews } = collection();
  const paraphrases = path.join(dir, 'paraphrases.csv');
  const verdicts = path.join(dir, 'reviews.json');
  writeFileSync(paraphrases, rowsToCsv(stories));
  writeFileSync(verdicts, rowsToJson(reviews));
  return { paraphrases, verdicts, stories, reviews };
}

describe('templates collect', () => {
  it('turns exported rows into a template file that generate reads, whose stories check entailed', async () => {
    const dir = tmp();
    const { paraphrases, verdicts } = files(dir);
    const out = path.join(dir, 'collected.json');
    const code = await main([
      'templates',
      'collect',
      '--from',
      paraphrases,
      `--from=${verdicts}`,
      '--out',
      out,
      '--test-share',
      '0.5',
      '--seed',
      '7',
    ]);
    expect(io.err).toBe('');
    expect(code).toBe(0);
    expect(lastLine()).toMatch(LAST);
    // 52 stories, one with a bad review; 51 templates.
    expect(lastLine()).toBe('paraphrases=52 accepted=51 templates=51');
    expect(io.out).toMatch(/51 accepted, 1 rejected, 0 with fewer than 3 reviews, 0 failed the checks/);
    const all = parseTemplateJson(readFileSync(out, 'utf8'), out);
    const train = parseTemplateJson(readFileSync(path.join(dir, 'collected.train.json'), 'utf8'));
    const test = parseTemplateJson(readFileSync(path.join(dir, 'collected.test.json'), 'utf8'));
    // Clauses state only what the generator states: no in-law, nephew or niece fact.
    expect(Object.keys(all).filter((f) => /in-law|nephew|niece/.test(f))).toEqual([]);
    expect(all['mother']!['male-female']).toEqual(
      expect.arrayContaining([
        `ENT_1_female is the mother of ENT_0_male. ${MARKS[0]}`,
        `ENT_1_female is the mother of ENT_0_male. ${MARKS[1]}`,
      ]),
    );
    // Lists of two are split one and one.
    expect(train['mother']!['male-female']).toHaveLength(1);
    expect(test['mother']!['male-female']).toHaveLength(1);

    // generate --templates with the train half (its test half beside it) and the template split.
    const ds = path.join(dir, 'ds');
    io.out = '';
    const gen = [
      'generate',
      '--templates',
      path.join(dir, 'collected.train.json'),
      '--template-split',
      '--train-tasks',
      '1.2',
      '--test-tasks',
      '1.3',
      '--train-rows',
      '30',
      '--test-rows',
      '10',
      '--combination-length',
      '1',
      '--seed',
      'collect',
      '--out',
      ds,
    ];
    expect(await main(gen)).toBe(0);
    const rows = [
      ...parseClutrrCsv(readFileSync(path.join(ds, '1.2_train.csv'), 'utf8')),
      ...parseClutrrCsv(readFileSync(path.join(ds, '1.3_test.csv'), 'utf8')),
    ];
    expect(rows).toHaveLength(40);
    const collected = rows.filter((r) => MARKS.some((m) => r.story.includes(m)));
    // Most facts have a collected template (all 38 single-fact cells bar a missing half), told
    // with the family's names in brackets.
    expect(collected.length).toBeGreaterThan(30);
    // Train rows tell only the train half's sentences: each "[B] is the <word> of [A]. <mark>" is
    // a template of key <word>, genders A-B, in the train file.
    const inTrain = (word: string, genders: string, mark: string) =>
      (train[word]?.[genders] ?? []).some((t) => t.endsWith(` of ENT_0_${genders.split('-')[0]}. ${mark}`));
    const told = /\[([A-Za-z]+)\] is the ([a-z-]+) of \[([A-Za-z]+)\]\. (They waved[^.]*\.|Both of them[^.]*\.)/g;
    let seen = 0;
    for (const r of collected.filter((x) => x.taskSplit === 'train')) {
      const gender = new Map(r.genders.map((g) => [g.name, g.gender]));
      for (const m of r.story.matchAll(told)) {
        expect(inTrain(m[2]!, `${gender.get(m[3]!)}-${gender.get(m[1]!)}`, m[4]!)).toBe(true);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(collected.some((r) => /\[[A-Z][a-z]+\] is the [a-z-]+ of \[[A-Z][a-z]+\]\. (They|Both)/.test(r.story))).toBe(
      true,
    );
    io.out = '';
    expect(await main(['check', path.join(ds, '1.2_train.csv'), path.join(ds, '1.3_test.csv')])).toBe(0);
    expect(lastLine()).toMatch(/^rows=40 entailed=40 ambiguous=0 unsupported=0 /);
  });

  it('reads a results server data folder, and a study filter', async () => {
    const dir = tmp();
    const { stories, reviews } = collection();
    const store = ResultStore.open(path.join(dir, 'results.sqlite'));
    for (const studyId of ['para', 'review'])
      store.registerStudy({ token: encodeStudyLink(withDefaults({ studyId })) });
    expect(store.ingest({ sessions: [], rows: stories }).status).toBe('stored');
    expect(store.ingest({ sessions: [], rows: reviews }).status).toBe('stored');
    store.close();
    const out = path.join(dir, 't.json');
    expect(await main(['templates', 'collect', '--data', dir, '--out', out])).toBe(0);
    expect(lastLine()).toBe('paraphrases=52 accepted=51 templates=51');
    // Without the review study's rows nothing has its three reviews; with --min-reviews 0 all pass.
    io.out = '';
    io.err = '';
    expect(await main(['templates', 'collect', '--data', dir, '--study', 'para', '--out', out, '--force'])).toBe(0);
    expect(lastLine()).toBe('paraphrases=52 accepted=0 templates=0');
    expect(io.err).toMatch(/warning: no story was accepted/);
    io.out = '';
    expect(
      await main([
        'templates',
        'collect',
        '--data',
        dir,
        '--study',
        'para',
        '--min-reviews',
        '0',
        '--out',
        out,
        '--force',
      ]),
    ).toBe(0);
    expect(lastLine()).toBe('paraphrases=52 accepted=52 templates=52');
  });

  it('lists stories and reviews it cannot use on stderr, and majority acceptance', async () => {
    const dir = tmp();
    // A story changed after its checks (it now names someone outside its facts), and a review
    // by the story's writer.
    const stories = collection().stories.map((s, i) => (i === 1 ? { ...s, story: `${s.story} Then Mary came.` } : s));
    const own = reviewRow('writer-0', 99, stories[2]!, GOOD);
    const file = path.join(dir, 'all.csv');
    writeFileSync(file, rowsToCsv([...stories, ...reviewsOf(stories), own]));
    expect(
      await main(['templates', 'collect', '--from', file, '--agree', 'majority', '--out', path.join(dir, 't.json')]),
    ).toBe(0);
    // Majority: the story with one bad review of three is accepted too.
    expect(lastLine()).toBe('paraphrases=52 accepted=51 templates=51');
    expect(io.err.trimEnd().split('\n')).toEqual([
      'story writer-0/1: its row says the checks passed, but they fail now: Mary is not in the facts: write only about the people named in them.',
      "story writer-0/2: review writer-0/99 is by the story's own writer: left out",
    ]);
  });

  it('refuses bad input with messages naming the file, row and flag', async () => {
    const dir = tmp();
    const { paraphrases } = files(dir);
    const out = path.join(dir, 't.json');
    const fails = async (argv: string[], code: number, message: RegExp) => {
      io.err = '';
      expect(await main(['templates', 'collect', ...argv])).toBe(code);
      expect(io.err).toMatch(message);
    };
    await fails(['--out', out], 2, /name the rows: --data DIR .* or --from FILE/);
    await fails(['--from', paraphrases], 2, /--out TEMPLATES\.json is needed/);
    await fails(['--from', paraphrases, '--out', path.join(dir, 't.csv')], 2, /--out must be a \.json file/);
    await fails(['--from', paraphrases, '--out', path.join(dir, 't.train.json')], 2, /not ending in \.train\.json/);
    await fails(['--from', paraphrases, '--out', out, '--agree', 'most'], 2, /--agree must be all or majority/);
    await fails(['--from', paraphrases, '--out', out, '--test-share', '1'], 2, /--test-share must be at least 0/);
    await fails(['--from', paraphrases, '--out', out, '--min-reviews', '-1'], 2, /--min-reviews must be 0 or more/);
    await fails(
      ['--from', paraphrases, '--out', out, '--min-reviews', '1.5'],
      2,
      /--min-reviews must be a whole number/,
    );
    await fails(['--from'], 2, /--from needs a file/);
    await fails(['--from', path.join(dir, 'nope.csv'), '--out', out], 1, /cannot read .*nope\.csv: no such file/);
    await fails(
      ['--data', path.join(dir, 'empty'), '--out', out],
      1,
      /no results database at .*empty\/results\.sqlite/,
    );
    await fails(['--from', paraphrases, '--out', path.join(dir, 'no', 't.json')], 1, /the folder .*no does not exist/);
    await fails(
      ['--from', paraphrases, '--study', 'other', '--out', out],
      1,
      /study: no rows of "other" in .*paraphrases\.csv/,
    );
    const broken = path.join(dir, 'broken.csv');
    writeFileSync(broken, readFileSync(paraphrases, 'utf8').replace(/,main,/, ',middle,'));
    await fails(['--from', broken, '--out', out], 1, /bad results file: .*broken\.csv \(row 1.*phase/);
    expect(existsSync(out)).toBe(false);
    // An existing output is kept unless --force.
    writeFileSync(out, '{}');
    await fails(['--from', paraphrases, '--out', out], 1, /t\.json already exists \(--force replaces\)/);
    expect(readFileSync(out, 'utf8')).toBe('{}');
  });

  it('prints its help', async () => {
    expect(await main(['templates', 'collect', '--help'])).toBe(0);
    expect(io.out).toMatch(/usage: npm run cli -- templates collect --data DIR \| --from FILE/);
    expect(io.out).toMatch(
      /--min-reviews <n> +reviews a story needs; 0 accepts stories without reviews \(pilots\) \(default 3\)/,
    );
  });
});
